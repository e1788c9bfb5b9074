import type { Tracer } from '@opentelemetry/api';
import type { BasicTracerProvider } from '@opentelemetry/sdk-trace-base';
import { withKbs } from './audit-log.js';
import { readStatement, type StatementText, sourcesOf } from './redact.js';
import { epochMs, type StatementReport } from './statement.js';

export interface TracingOptions {
  /** The OTLP/HTTP traces URL (config `tracing.endpoint`). */
  url: string;
  serviceName: string;
  version: string;
  /** Names of the data sources now (a span's `tributary.sources`). */
  sourceNames: () => Promise<string[]>;
}

type Api = typeof import('@opentelemetry/api');

/**
 * OpenTelemetry traces over OTLP/HTTP (JSON), docs/reference/configuration.md#traces: a span
 * per statement, with a child per source fragment. The SDK is imported only when an endpoint
 * is set, so a server without traces loads none of it.
 *
 * Spans are made when a statement ends, from the times the engine recorded (start, each
 * fragment's start and end): nothing runs per row or per batch, and the engine needs no
 * context propagation, only the report it already sends to observe/.
 */
export class Tracing {
  private constructor(
    private readonly api: Api,
    private readonly provider: BasicTracerProvider,
    private readonly tracer: Tracer,
    private readonly sourceNames: () => Promise<string[]>,
  ) {}

  static async start(o: TracingOptions): Promise<Tracing> {
    const [api, sdk, { OTLPTraceExporter }, { resourceFromAttributes }, semconv] = await Promise.all([
      import('@opentelemetry/api'),
      import('@opentelemetry/sdk-trace-base'),
      import('@opentelemetry/exporter-trace-otlp-http'),
      import('@opentelemetry/resources'),
      import('@opentelemetry/semantic-conventions'),
    ]);
    const provider = new sdk.BasicTracerProvider({
      resource: resourceFromAttributes({
        [semconv.ATTR_SERVICE_NAME]: o.serviceName,
        [semconv.ATTR_SERVICE_VERSION]: o.version,
      }),
      spanProcessors: [new sdk.BatchSpanProcessor(new OTLPTraceExporter({ url: o.url }))],
    });
    return new Tracing(api, provider, provider.getTracer('tributary', o.version), o.sourceNames);
  }

  /** The statement's span and its fragments' spans, placed at the times they ran. */
  /** `text` is `readStatement(r.sql)` when the caller already has it. */
  statement(r: StatementReport, text: StatementText = readStatement(r.sql)): void {
    this.statements([r], [text], [epochMs()]);
  }

  /** Several statements' spans, with one look-up of the source names; `ended[i]` is when statement i ended (epochMs()). */
  statements(
    rs: readonly StatementReport[],
    texts: readonly StatementText[],
    ended: readonly number[],
  ): void {
    this.sourceNames().then(
      (names) => {
        for (let i = 0; i < rs.length; i++)
          this.record(
            rs[i],
            texts[i],
            withKbs(sourcesOf(texts[i].qualifiers, names, rs[i].db), rs[i].kbs),
            ended[i],
          );
      },
      () => {
        for (let i = 0; i < rs.length; i++) this.record(rs[i], texts[i], [], ended[i]);
      },
    );
  }

  private record(r: StatementReport, text: StatementText, named: string[], ended: number): void {
    const { SpanKind, SpanStatusCode, ROOT_CONTEXT, trace } = this.api;
    const fragments = r.fragments ?? [];
    const sources = [...new Set([...named, ...fragments.map((f) => f.source)])];
    const kind = text.kind;
    const started = r.startedAt ?? ended - r.durationMs;
    const span = this.tracer.startSpan(
      `SQL ${kind}`,
      {
        kind: SpanKind.SERVER,
        startTime: started,
        attributes: {
          'db.operation.name': kind,
          'db.query.text': text.masked,
          'tributary.transport': r.transport,
          'tributary.sources': sources,
          'tributary.rows': r.rows,
          'tributary.truncated': r.truncated,
          ...(r.errorCode !== undefined ? { 'tributary.error_code': r.errorCode } : {}),
        },
      },
      ROOT_CONTEXT,
    );
    if (r.errorCode !== undefined)
      span.setStatus({ code: SpanStatusCode.ERROR, message: `error ${r.errorCode}` });
    const parent = trace.setSpan(ROOT_CONTEXT, span);
    const end = started + r.durationMs;
    for (const f of fragments) {
      const child = this.tracer.startSpan(
        `fragment ${f.source}`,
        {
          kind: SpanKind.CLIENT,
          startTime: f.startedAt,
          attributes: {
            'tributary.source': f.source,
            'tributary.engine': f.engine,
            'tributary.pushdown': f.pushdown,
            ...(f.rows !== undefined ? { 'tributary.rows': f.rows } : {}),
            ...(f.errorCode !== undefined ? { 'tributary.error_code': f.errorCode } : {}),
          },
        },
        parent,
      );
      if (f.errorCode !== undefined)
        child.setStatus({ code: SpanStatusCode.ERROR, message: `error ${f.errorCode}` });
      child.end(f.endedAt ?? end);
    }
    span.end(end);
  }

  /** Send what is buffered now (tests; shutdown does it too). */
  flush(): Promise<void> {
    return this.provider.forceFlush();
  }

  close(): Promise<void> {
    return this.provider.shutdown();
  }
}
