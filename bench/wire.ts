/**
 * The MySQL listener (issue 16), side by side in one run, all through mysql2 on loopback:
 * point lookups and 1,000-row results through Tributary's listener, against the same
 * statements on MariaDB directly, and against POST /api/sql/query. Targets for a point
 * lookup on a MariaDB-backed source: p50 at most 1 ms over MariaDB direct at concurrency 1,
 * and at least half of MariaDB's direct calls/s at concurrency 16. Also a 100,000-row result.
 */
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

async function perSecond(calls: Call[]): Promise<number> {
  let n = 0;
  const end = performance.now() + BURST_MS;
  await Promise.all(
    calls.map(async (call) => {
      while (performance.now() < end) {
        await call();
        n++;
      }
    }),
  );
  return Math.round(n / (BURST_MS / 1000));
}

export async function benchWire(): Promise<unknown> {
  const db = await createMariaDatabase('wirebench');
  await mariaExec(
    db.database,
    `CREATE TABLE items (id int PRIMARY KEY, name varchar(40), price decimal(10,2), at datetime);
     INSERT INTO items SELECT seq, CONCAT('item ', seq), seq / 100, '2024-01-01 00:00:00' + INTERVAL seq SECOND FROM seq_1_to_${ROWS};`,
  );
  const server = await startChildServer();
  try {
    const created = await sql(
      server.url,
      `CREATE DATABASE my WITH ENGINE = 'mariadb', PARAMETERS = ${JSON.stringify({ ...MARIADB, database: db.database })}`,
    );
    if (created.type !== 'ok') throw new Error(JSON.stringify(created));
    const wirePort = Number(new URL(server.url).port) + 1;
    const open = (direct: boolean) =>
      mysql.createConnection(
        direct
          ? { ...MARIADB, database: db.database }
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

    const many = async (direct: boolean) => Promise.all(Array.from({ length: 16 }, () => open(direct)));
    const d16 = await many(true);
    const w16 = await many(false);
    const dps = await perSecond(d16.map((c) => lookup(c, false)));
    const wps = await perSecond(w16.map((c) => lookup(c, false)));
    out.point_lookup_c16 = { direct_per_s: dps, wire_per_s: wps, ratio: round(wps / dps, 2) };
    for (const c of [...d16, ...w16]) await c.end();

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
      c16_at_least_half_of_direct: wps >= dps / 2,
    };
    await direct.end();
    await wire.end();
    return out;
  } finally {
    await server.stop();
    await db.drop();
  }
}
