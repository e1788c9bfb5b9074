/**
 * Where the CLI's statements run: in this process on the storage dir, or on a running server
 * (`--url`). Either way one session: a `USE` sticks for the statements after it.
 */
import { localPrincipal } from '../auth/principal.js';
import type { Config } from '../config/types.js';
import { createLogger } from '../core/logger.js';
import type { QueryContext } from '../sql/engine-types.js';
import { type JsonHead, splitRows } from './json-rows.js';
import type { Answer } from './output.js';

/** The CLI's statements in the audit log and metrics: a local user, no principal. */
const CLI_CALLER = { principal: null, transport: 'cli' };

export interface Session {
  readonly db: string | undefined;
  run(sql: string, signal?: AbortSignal): Promise<Answer>;
  close(): Promise<void>;
}

export async function openSession(
  config: Config,
  opts: { url?: string; token?: string; db?: string },
): Promise<Session> {
  return opts.url ? new RemoteSession(opts.url, opts.token, opts.db) : localSession(config, opts.db);
}

async function localSession(config: Config, db: string | undefined): Promise<Session> {
  const { closeDeps, createDeps } = await import('./start.js');
  const deps = await createDeps(
    config,
    createLogger(config.logLevel === 'info' ? 'warn' : config.logLevel, 2, config.logFormat),
  );
  // The engine sets ctx.db on USE (and clears it on DROP DATABASE of the current one).
  // In this process, on the storage dir: the operator's own, `local` as with auth off.
  const ctx: QueryContext = { db, principal: localPrincipal() };
  return {
    get db() {
      return ctx.db;
    },
    async run(sql, signal) {
      const r = await deps.engine.stream(sql, ctx, { signal, caller: CLI_CALLER });
      if (r.type === 'table') return tableAnswer(r.column_names, r.data);
      if (r.type !== 'rows') return r;
      return {
        type: 'rows',
        columns: r.columns.map((c) => c.name),
        batches: r.batches,
        cancel: () => r.cancel(),
      };
    },
    close: () => closeDeps(deps),
  };
}

const USE_RE = /^USE\s+(`(?:[^`]|``)+`|[^\s;`]+)\s*;?$/i;

/** The server keeps no session for POST /api/sql/query: the client remembers USE and sends it as context.db. */
class RemoteSession implements Session {
  db: string | undefined;
  private readonly endpoint: string;

  constructor(
    url: string,
    private readonly token: string | undefined,
    db: string | undefined,
  ) {
    let u: URL;
    try {
      u = new URL(url);
    } catch {
      throw new Error(`Invalid --url '${url}': expected e.g. http://127.0.0.1:47334`);
    }
    this.endpoint = `${u.origin}${u.pathname.replace(/\/+$/, '')}/api/sql/query`;
    this.db = db;
  }

  async run(sql: string, signal?: AbortSignal): Promise<Answer> {
    const headers: Record<string, string> = { 'content-type': 'application/json' };
    if (this.token) headers.authorization = `Bearer ${this.token}`;
    const abort = new AbortController();
    signal?.addEventListener('abort', () => abort.abort(), { once: true });
    let res: Response;
    try {
      res = await fetch(this.endpoint, {
        method: 'POST',
        headers,
        body: JSON.stringify({ query: sql, context: this.db ? { db: this.db } : undefined }),
        signal: abort.signal,
      });
    } catch (e) {
      if (abort.signal.aborted) throw e;
      const cause = (e as { cause?: Error }).cause?.message;
      throw new Error(`Cannot reach ${this.endpoint}: ${cause ?? (e as Error).message}`);
    }
    if (!res.ok) {
      const body = (await res.json().catch(() => null)) as { error_code?: string; message?: string } | null;
      throw new Error(
        `${this.endpoint} answered ${res.status}${body?.error_code ? ` ${body.error_code}` : ''}: ${body?.message ?? res.statusText}`,
      );
    }
    let head: JsonHead | undefined;
    const rows = splitRows(res.body as AsyncIterable<Uint8Array>, (h) => {
      head = h;
    });
    const first = await rows.next();
    if (!head) throw new Error(`${this.endpoint} sent an empty answer`);
    if (head.type === 'whole') {
      const answer = head.value as Answer | { type: 'table'; column_names: string[]; data: unknown[][] };
      if (answer.type === 'table') return tableAnswer(answer.column_names, answer.data);
      const use = USE_RE.exec(sql.trim());
      if (answer.type === 'ok' && use)
        this.db = use[1].startsWith('`') ? use[1].slice(1, -1).replace(/``/g, '`') : use[1];
      return answer;
    }
    async function* batches() {
      if (!first.done) yield first.value;
      yield* rows;
    }
    return {
      type: 'rows',
      columns: head.columns,
      batches: batches(),
      cancel: async () => {
        abort.abort();
        await rows.return(undefined).catch(() => {});
      },
    };
  }

  async close(): Promise<void> {}
}

function tableAnswer(columns: string[], data: unknown[][]): Answer {
  async function* one() {
    yield data;
  }
  return { type: 'rows', columns, batches: one(), cancel: async () => {} };
}
