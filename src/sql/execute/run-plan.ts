import type { QueryStream } from '../../sources/types.js';
import type { Plan } from '../plan/planner.js';
import type { Row } from '../types.js';
import type { LocalEngine } from './local.js';
import { localError } from './local.js';
import { dq, loadBatches } from './local-load.js';

let querySeq = 0;

export interface RunOptions {
  signal?: AbortSignal;
  onProgress?: (rows: number) => void;
  /** Rows of information_schema tables the plan reads, built on demand. */
  infoRows?: (table: string) => Promise<{ columns: { name: string; type: any }[]; rows: Row[] }>;
}

/** Run a plan to a stream of canonical rows. */
export async function runPlan(plan: Plan, local: LocalEngine, opts: RunOptions = {}): Promise<QueryStream> {
  if (plan.kind === 'pushdown') return plan.source.query(plan.sql, { signal: opts.signal });

  // Each query gets its own schema so fragments load in parallel on separate connections.
  const schema = `q${process.pid}_${++querySeq}`;
  const setup = await local.connect();
  await setup.run(`CREATE SCHEMA ${dq(schema)}`);
  const drop = async () => {
    try {
      await setup.run(`DROP SCHEMA IF EXISTS ${dq(schema)} CASCADE`);
    } finally {
      setup.closeSync();
    }
  };
  let loaded = 0;
  const progress = (n: number) => opts.onProgress?.((loaded += n));
  const streams: QueryStream[] = [];
  try {
    const loads = plan.fragments.map(async (f) => {
      const s = await f.source.query(f.sql, { signal: opts.signal });
      streams.push(s);
      const conn = await local.connect();
      try {
        let last = 0;
        await loadBatches(conn, schema, f.temp, s.columns, s.batches, (n) => {
          progress(n - last);
          last = n;
        });
      } finally {
        conn.closeSync();
      }
    });
    for (const r of plan.info) {
      loads.push(
        (async () => {
          const { columns, rows } = await opts.infoRows!(r.table.toLowerCase());
          const conn = await local.connect();
          try {
            await loadBatches(conn, schema, `__info_${r.table.toLowerCase()}`, columns, one(rows));
          } finally {
            conn.closeSync();
          }
        })(),
      );
    }
    const results = await Promise.allSettled(loads);
    const failed = results.find((r) => r.status === 'rejected') as PromiseRejectedResult | undefined;
    if (failed) throw failed.reason;
  } catch (e) {
    await Promise.all(streams.map((s) => s.cancel().catch(() => {})));
    await drop().catch(() => {});
    throw localError(e, opts.signal);
  }
  const conn = await local.connect();
  let inner: QueryStream;
  try {
    // Fragments are named unqualified in the local SQL; the search path finds this query's.
    await conn.run(`SET search_path = '${schema},main'`);
    inner = await local.query(conn, plan.localSql, true, opts.signal);
  } catch (e) {
    await drop().catch(() => {});
    throw e;
  }
  let dropped = false;
  const cleanup = async () => {
    if (dropped) return;
    dropped = true;
    await drop().catch(() => {});
  };
  async function* batches() {
    try {
      for await (const b of inner.batches) yield b;
    } finally {
      await cleanup();
    }
  }
  return {
    columns: inner.columns,
    batches: batches(),
    cancel: async () => {
      await inner.cancel();
      await cleanup();
    },
  };
}

async function* one(rows: Row[]): AsyncGenerator<Row[]> {
  yield rows;
}
