/**
 * The MySQL listener (issue 16), side by side in one run, all through mysql2 on loopback:
 * point lookups and 1,000-row results through Tributary's listener, against the same
 * statements on MariaDB directly, and against POST /api/sql/query. Targets for a point
 * lookup on a MariaDB-backed source: p50 at most 1 ms over MariaDB direct at concurrency 1,
 * and at least half of MariaDB's direct calls/s at concurrency 16. Also a 100,000-row result.
 *
 * The floor (wire-floor.ts) is the thinnest proxy this machine can run: a mysql2 server in
 * its own process that forwards each statement's text to MariaDB through a pool and writes
 * the rows back untouched. A proxy's calls/s at concurrency 16 cannot pass it on these
 * cores (the client, the proxy and MariaDB share them), so `of_floor` says how much of what
 * is physically possible Tributary reaches. The pipelined floor (`pipelined`) is the thinnest
 * proxy that pipelines as Tributary's relay does: statements from all clients onto one MariaDB
 * connection, several to a write, answers copied back; `of_pipelined_floor` compares with it.
 */
import { spawn } from 'node:child_process';
import mysql from 'mysql2/promise';
import { createMariaDatabase, MARIADB, mariaExec } from '../test/helpers/services.js';
import { percentile, round, sql, startChildServer } from './lib.js';

const ROWS = 100_000;
const SAMPLES = 2000;
const BURST_MS = 3000;

type Call = () => Promise<unknown>;

async function p50(call: Call): Promise<number> {
  for (let i = 0; i < 200; i++) await call();
  const xs: number[] = [];
  for (let i = 0; i < SAMPLES; i++) {
    const t = performance.now();
    await call();
    xs.push(performance.now() - t);
  }
  return round(percentile(xs, 50), 3);
}

/** Calls/s of all connections together, and the p50 of one call meanwhile (ms). */
async function perSecond(calls: Call[]): Promise<{ per_s: number; p50_ms: number }> {
  for (const call of calls) await call();
  const xs: number[] = [];
  const end = performance.now() + BURST_MS;
  await Promise.all(
    calls.map(async (call) => {
      for (let t = performance.now(); t < end; ) {
        await call();
        const now = performance.now();
        xs.push(now - t);
        t = now;
      }
    }),
  );
  return { per_s: Math.round(xs.length / (BURST_MS / 1000)), p50_ms: round(percentile(xs, 50), 3) };
}

/** The floor proxy (wire-floor.ts) as a child process, listening on `port`. */
async function startFloor(port: number, database: string, mode = 'proxy'): Promise<() => void> {
  const proc = spawn(
    process.execPath,
    ['--import', 'tsx', 'bench/wire-floor.ts', String(port), database, mode],
    { stdio: ['ignore', 'pipe', 'inherit'] },
  );
  await new Promise<void>((resolve, reject) => {
    proc.stdout.on('data', (d: Buffer) => d.toString().includes('ready') && resolve());
    proc.once('exit', (code) => reject(new Error(`floor proxy exited (${code})`)));
  });
  return () => proc.kill();
}

export async function benchWire(): Promise<unknown> {
  const db = await createMariaDatabase('wirebench');
  await mariaExec(
    db.database,
    `CREATE TABLE items (id int PRIMARY KEY, name varchar(40), price decimal(10,2), at datetime);
     INSERT INTO items SELECT seq, CONCAT('item ', seq), seq / 100, '2024-01-01 00:00:00' + INTERVAL seq SECOND FROM seq_1_to_${ROWS};`,
  );
  const server = await startChildServer();
  const floorPort = Number(new URL(server.url).port) + 2;
  const stopFloor = await startFloor(floorPort, db.database);
  const pipePort = floorPort + 1;
  const stopPipe = await startFloor(pipePort, db.database, 'pipe');
  const pipelinedPort = floorPort + 2;
  const stopPipelined = await startFloor(pipelinedPort, db.database, 'pipeline');
  try {
    const created = await sql(
      server.url,
      `CREATE DATABASE my WITH ENGINE = 'mariadb', PARAMETERS = ${JSON.stringify({ ...MARIADB, database: db.database })}`,
    );
    if (created.type !== 'ok') throw new Error(JSON.stringify(created));
    const wirePort = Number(new URL(server.url).port) + 1;
    const open = (to: 'direct' | 'wire' | 'floor' | 'pipe' | 'pipelined' | boolean) =>
      mysql.createConnection(
        to === true || to === 'direct'
          ? { ...MARIADB, database: db.database }
          : to === 'floor' || to === 'pipelined'
            ? {
                host: '127.0.0.1',
                port: to === 'floor' ? floorPort : pipelinedPort,
                user: 'bench',
                database: db.database,
              }
            : to === 'pipe'
              ? { ...MARIADB, port: pipePort, database: db.database }
              : { host: '127.0.0.1', port: wirePort, user: 'bench', database: 'my' },
      );
    let k = 0;
    const id = () => (k = (k % ROWS) + 1);
    const lookup = (c: mysql.Connection, prepared: boolean) => () =>
      prepared
        ? c.execute('SELECT id, name, price, at FROM items WHERE id = ?', [id()])
        : c.query(`SELECT id, name, price, at FROM items WHERE id = ${id()}`);
    const range = (c: mysql.Connection) => () =>
      c.query('SELECT id, name, price, at FROM items WHERE id <= 1000');
    const all = (c: mysql.Connection) => () => c.query('SELECT id, name, price, at FROM items');
    const http = (q: () => string) => () => sql(server.url, q(), 'my');

    const direct = await open(true);
    const wire = await open(false);
    const out: Record<string, unknown> = {};
    const side = async (name: string, d: Call, w: Call, h?: Call) => {
      const row: Record<string, number> = { direct_ms: await p50(d), wire_ms: await p50(w) };
      if (h) row.http_ms = await p50(h);
      row.wire_over_direct_ms = round(row.wire_ms - row.direct_ms, 3);
      row.ratio = round(row.wire_ms / row.direct_ms, 2);
      out[name] = row;
    };
    await side(
      'point_lookup_p50_c1',
      lookup(direct, false),
      lookup(wire, false),
      http(() => `SELECT id, name, price, at FROM items WHERE id = ${id()}`),
    );
    await side('point_lookup_prepared_p50_c1', lookup(direct, true), lookup(wire, true));
    await side(
      'rows_1000_p50_c1',
      range(direct),
      range(wire),
      http(() => 'SELECT id, name, price, at FROM items WHERE id <= 1000'),
    );

    const floor = await open('floor');
    out.point_lookup_floor_p50_c1_ms = await p50(lookup(floor, false));
    await floor.end();

    // Interleaved twice, so a neighbour's burst on the shared cores hits each side alike.
    const sides = ['direct', 'pipe', 'pipelined', 'floor', 'wire'] as const;
    const many = async (to: (typeof sides)[number]) =>
      Promise.all(Array.from({ length: 16 }, () => open(to)));
    const conns: Record<string, mysql.Connection[]> = {};
    const runs: Record<string, { per_s: number; p50_ms: number }[]> = {};
    for (const side of sides) {
      conns[side] = await many(side);
      runs[side] = [];
    }
    for (let pass = 0; pass < 2; pass++)
      for (const side of sides) runs[side].push(await perSecond(conns[side].map((c) => lookup(c, false))));
    const best = (side: string) => runs[side].reduce((a, b) => (b.per_s > a.per_s ? b : a));
    const [dps, pps, lps, fps, wps] = sides.map(best);
    out.point_lookup_c16 = {
      direct_per_s: dps.per_s,
      pipe_per_s: pps.per_s,
      pipelined_floor_per_s: lps.per_s,
      floor_per_s: fps.per_s,
      wire_per_s: wps.per_s,
      ratio: round(wps.per_s / dps.per_s, 2),
      floor_ratio: round(fps.per_s / dps.per_s, 2),
      of_floor: round(wps.per_s / fps.per_s, 2),
      pipe_ratio: round(pps.per_s / dps.per_s, 2),
      pipelined_floor_ratio: round(lps.per_s / dps.per_s, 2),
      of_pipelined_floor: round(wps.per_s / lps.per_s, 2),
      direct_p50_ms: dps.p50_ms,
      pipe_p50_ms: pps.p50_ms,
      pipelined_floor_p50_ms: lps.p50_ms,
      floor_p50_ms: fps.p50_ms,
      wire_p50_ms: wps.p50_ms,
      runs,
    };
    // Prepared statements (COM_STMT_EXECUTE, as JDBC and BI tools send them), once each side.
    const prepDirect = await perSecond(conns.direct.map((c) => lookup(c, true)));
    const prepWire = await perSecond(conns.wire.map((c) => lookup(c, true)));
    out.point_lookup_prepared_c16 = {
      direct_per_s: prepDirect.per_s,
      wire_per_s: prepWire.per_s,
      ratio: round(prepWire.per_s / prepDirect.per_s, 2),
      direct_p50_ms: prepDirect.p50_ms,
      wire_p50_ms: prepWire.p50_ms,
    };
    for (const c of Object.values(conns).flat()) await c.end();
    const wpsN = wps.per_s;
    const dpsN = dps.per_s;

    const t0 = performance.now();
    await all(direct)();
    const directAll = performance.now() - t0;
    const t1 = performance.now();
    await all(wire)();
    const wireAll = performance.now() - t1;
    out.rows_100k = {
      direct_ms: round(directAll, 1),
      wire_ms: round(wireAll, 1),
      ratio: round(wireAll / directAll, 2),
    };
    const lookupRow = out.point_lookup_p50_c1 as Record<string, number>;
    out.targets = {
      p50_at_most_1ms_over_direct: lookupRow.wire_over_direct_ms <= 1,
      c16_at_least_half_of_direct: wpsN >= dpsN / 2,
    };
    await direct.end();
    await wire.end();
    return out;
  } finally {
    stopFloor();
    stopPipe();
    stopPipelined();
    await server.stop();
    await db.drop();
  }
}
