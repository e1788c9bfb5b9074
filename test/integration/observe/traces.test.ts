/**
 * OpenTelemetry traces (docs/reference/configuration.md#traces): with OTEL_EXPORTER_OTLP_ENDPOINT
 * set, each statement is a span with a child per source fragment, sent over OTLP/HTTP (JSON)
 * to a collector stand-in of the test's own on 127.0.0.1. Real PostgreSQL and MariaDB sources.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, test } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { mariaParams, pgParams, startTestServer, type TestServer } from '../../helpers/server.js';
import { createMariaDatabase, createPgDatabase, mariaExec, pgExec } from '../../helpers/services.js';
import { connect, resultOf } from '../mcp/helpers/clients.js';

interface OtlpValue {
  stringValue?: string;
  intValue?: number | string;
  boolValue?: boolean;
  arrayValue?: { values: OtlpValue[] };
}
interface OtlpSpan {
  traceId: string;
  spanId: string;
  parentSpanId?: string;
  name: string;
  kind: number;
  startTimeUnixNano: string;
  endTimeUnixNano: string;
  attributes: { key: string; value: OtlpValue }[];
  status?: { code?: number; message?: string };
}
interface Received {
  service: string;
  span: OtlpSpan;
}

let collector: Server;
const received: Received[] = [];
const requests: { path: string; type: string }[] = [];
let server: TestServer;
let pgDb: { database: string; drop: () => Promise<void> };
let myDb: { database: string; drop: () => Promise<void> };

function plain(v: OtlpValue): unknown {
  if (v.stringValue !== undefined) return v.stringValue;
  if (v.intValue !== undefined) return Number(v.intValue);
  if (v.boolValue !== undefined) return v.boolValue;
  if (v.arrayValue) return v.arrayValue.values.map(plain);
  return undefined;
}

function attrs(s: OtlpSpan): Record<string, unknown> {
  return Object.fromEntries(s.attributes.map((a) => [a.key, plain(a.value)]));
}

before(async () => {
  collector = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c) => chunks.push(c));
    req.on('end', () => {
      requests.push({ path: req.url ?? '', type: req.headers['content-type'] ?? '' });
      const body = JSON.parse(Buffer.concat(chunks).toString('utf8'));
      for (const rs of body.resourceSpans ?? []) {
        const service = rs.resource.attributes.find((a: { key: string }) => a.key === 'service.name');
        for (const ss of rs.scopeSpans ?? [])
          for (const span of ss.spans ?? []) received.push({ service: plain(service.value) as string, span });
      }
      res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
    });
  });
  await new Promise<void>((r) => collector.listen(0, '127.0.0.1', r));
  const port = (collector.address() as AddressInfo).port;

  pgDb = await createPgDatabase('traces');
  myDb = await createMariaDatabase('traces');
  await pgExec(
    pgDb.database,
    "CREATE TABLE customers (id int, name text); INSERT INTO customers VALUES (1, 'Ada'), (2, 'Bo')",
  );
  await mariaExec(
    myDb.database,
    'CREATE TABLE orders (id int, customer_id int, total int); INSERT INTO orders VALUES (10, 1, 5), (11, 1, 7), (12, 2, 9)',
  );
  server = await startTestServer({
    OTEL_EXPORTER_OTLP_ENDPOINT: `http://127.0.0.1:${port}/`,
    OTEL_SERVICE_NAME: 'tributary-under-test',
  });
  for (const q of [
    `CREATE DATABASE pg WITH ENGINE = 'postgres', PARAMETERS = ${pgParams(pgDb.database)}`,
    `CREATE DATABASE my WITH ENGINE = 'mariadb', PARAMETERS = ${mariaParams(myDb.database)}`,
  ])
    assert.equal((await server.sql(q)).type, 'ok', q);
});

after(async () => {
  await server?.stop();
  await pgDb?.drop();
  await myDb?.drop();
  await new Promise((r) => collector?.close(r));
});

/** The statement span whose masked SQL is `text`, once it has arrived, and its children. */
async function spansOf(
  text: string,
): Promise<{ statement: OtlpSpan; children: OtlpSpan[]; service: string }> {
  for (let i = 0; i < 100; i++) {
    await server.deps.observer?.tracing?.flush();
    const hit = received.find((r) => attrs(r.span)['db.query.text'] === text);
    if (hit) {
      const children = received.filter((r) => r.span.parentSpanId === hit.span.spanId).map((r) => r.span);
      return { statement: hit.span, children, service: hit.service };
    }
    await sleep(50);
  }
  assert.fail(`no span for ${text}; got ${received.map((r) => r.span.name).join(', ')}`);
}

test('a cross-source statement: one span, a child per fragment, parent ids, literals masked', async () => {
  const sql =
    "SELECT c.name, SUM(o.total) AS total FROM pg.customers c JOIN my.orders o ON o.customer_id = c.id WHERE c.name <> 'secret-name' GROUP BY c.name ORDER BY c.name";
  const r = await server.sql(sql);
  assert.deepEqual(r, {
    type: 'table',
    column_names: ['name', 'total'],
    data: [
      ['Ada', 12],
      ['Bo', 9],
    ],
  });
  const masked =
    'SELECT c.name, SUM(o.total) AS total FROM pg.customers c JOIN my.orders o ON o.customer_id = c.id WHERE c.name <> ? GROUP BY c.name ORDER BY c.name';
  const { statement, children, service } = await spansOf(masked);
  assert.equal(service, 'tributary-under-test');
  assert.equal(statement.name, 'SQL SELECT');
  assert.equal(statement.parentSpanId || undefined, undefined);
  const a = attrs(statement);
  assert.equal(a['db.operation.name'], 'SELECT');
  assert.equal(a['tributary.transport'], 'http');
  assert.deepEqual((a['tributary.sources'] as string[]).sort(), ['my', 'pg']);
  assert.equal(a['tributary.rows'], 2);
  assert.equal(a['tributary.error_code'], undefined);
  assert.equal(children.length, 2);
  const bySource = Object.fromEntries(children.map((c) => [attrs(c)['tributary.source'], c]));
  assert.deepEqual(Object.keys(bySource).sort(), ['my', 'pg']);
  assert.equal(attrs(bySource.pg)['tributary.engine'], 'postgres');
  assert.equal(attrs(bySource.my)['tributary.engine'], 'mariadb');
  for (const c of children) {
    assert.equal(c.traceId, statement.traceId);
    assert.equal(c.parentSpanId, statement.spanId);
    assert.equal(attrs(c)['tributary.pushdown'], false);
    assert.ok(BigInt(c.startTimeUnixNano) >= BigInt(statement.startTimeUnixNano));
    assert.ok(BigInt(c.endTimeUnixNano) <= BigInt(statement.endTimeUnixNano));
  }
  assert.equal(attrs(bySource.my)['tributary.rows'], 3);
  assert.ok(requests.every((q) => q.path === '/v1/traces' && q.type.startsWith('application/json')));
  assert.doesNotMatch(JSON.stringify(received), /secret-name/);
});

test('a statement pushed down whole through MCP: one child for its source; a failure marks the span', async () => {
  const mcp = await connect('streamable', server.url);
  try {
    const r = resultOf(
      await mcp.client.callTool({
        name: 'query',
        arguments: { query: 'SELECT id FROM pg.customers WHERE id = 2' },
      }),
    );
    assert.deepEqual(r.data, [[2]]);
  } finally {
    await mcp.terminate();
  }
  const pushed = await spansOf('SELECT id FROM pg.customers WHERE id = ?');
  assert.equal(attrs(pushed.statement)['tributary.transport'], 'mcp');
  assert.equal(pushed.children.length, 1);
  assert.deepEqual(
    { ...attrs(pushed.children[0]) },
    { 'tributary.source': 'pg', 'tributary.engine': 'postgres', 'tributary.pushdown': true },
  );

  assert.equal((await server.sql('SELECT nope FROM pg.customers')).type, 'error');
  const failed = await spansOf('SELECT nope FROM pg.customers');
  assert.equal(attrs(failed.statement)['tributary.error_code'], 1054);
  assert.equal(failed.statement.status?.code, 2);
});

test('without OTEL_EXPORTER_OTLP_ENDPOINT the OpenTelemetry SDK is never loaded', () => {
  const script = `
    import { createRequire } from 'node:module';
    const { startTestServer } = await import(${JSON.stringify(new URL('../../helpers/server.ts', import.meta.url).pathname)});
    const s = await startTestServer({});
    await s.sql('SELECT 1');
    const loaded = Object.keys(createRequire(import.meta.url).cache);
    console.log(JSON.stringify(loaded.filter((k) => /@opentelemetry[\\\\/](sdk-|exporter-|resources)/.test(k))));
    await s.stop();`;
  const env = { ...process.env };
  for (const k of Object.keys(env)) if (k.startsWith('OTEL_')) delete env[k];
  const r = spawnSync(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], {
    encoding: 'utf8',
    env,
    timeout: 60_000,
  });
  assert.equal(r.status, 0, r.stderr);
  assert.equal(r.stdout.trim().split('\n').at(-1), '[]');
});
