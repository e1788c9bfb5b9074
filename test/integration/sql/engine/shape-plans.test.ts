/**
 * Pushdown plans shared by statements that differ only in integers (sql/plan/shape-plans.ts)
 * must answer exactly as planning each statement afresh does: the same engine with sharing
 * off, over the same sources, is the reference.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import mysql from 'mysql2/promise';
import pg from 'pg';
import { createDeps } from '../../../../src/cli/start.js';
import { loadConfig } from '../../../../src/config/load.js';
import { createLogger } from '../../../../src/core/logger.js';
import type { AppDeps } from '../../../../src/http/deps.js';
import { Engine } from '../../../../src/sql/engine.js';
import type { Result } from '../../../../src/sql/result.js';
import { mariaParams, pgParams } from '../../../helpers/server.js';
import {
  createMariaDatabase,
  createPgDatabase,
  MARIADB,
  mariaExec,
  PG,
  pgExec,
} from '../../../helpers/services.js';

const PG_FIXTURE = `
CREATE TABLE t (id integer PRIMARY KEY, name text, qty integer, flag boolean, created_at timestamp);
INSERT INTO t SELECT g, 'item-' || g, g % 7, g % 3 = 0, timestamp '2024-01-01' + g * interval '1 hour'
  FROM generate_series(0, 300) g;
`;
const MARIA_FIXTURE = `
CREATE TABLE t (id INT PRIMARY KEY, name VARCHAR(40), qty INT, flag BOOLEAN, created_at DATETIME);
INSERT INTO t SELECT seq, CONCAT('item-', seq), seq % 7, seq % 3 = 0, TIMESTAMP '2024-01-01 00:00:00' + INTERVAL seq HOUR
  FROM seq_0_to_300;
`;

/** Statements of a few shapes, each with many integers (0 and 1 included, and one past 2^31). */
function statements(src: string): string[] {
  const out: string[] = [];
  for (const i of [0, 1, 2, 17, 18, 150, 299, 300, 301, 3000000000]) {
    out.push(`SELECT id, name, qty, flag, created_at FROM ${src}.t WHERE id = ${i}`);
    out.push(`SELECT id AS k, name FROM ${src}.t WHERE id BETWEEN ${i} AND ${i + 5} ORDER BY id`);
    out.push(`SELECT id FROM ${src}.t WHERE id IN (${i}, ${i + 1}, 7) ORDER BY id LIMIT ${(i % 4) + 1}`);
    out.push(`SELECT COUNT(*) FROM ${src}.t WHERE qty = ${i % 7} AND id < ${i + 10}`);
    out.push(
      `SELECT id, qty FROM ${src}.t WHERE name = 'item-5' OR id < ${i % 5} ORDER BY id LIMIT ${i % 3}, 2`,
    );
    out.push(`SELECT id FROM ${src}.t WHERE flag = ${i % 2} AND id < ${(i % 50) + 5} ORDER BY id`);
    out.push(`SELECT id, qty + 1 FROM ${src}.t WHERE id = ${i}`);
    // A UNION chain long enough to be parsed from three members and grown (union-runs.ts).
    const members = Array.from({ length: 10 }, (_, k) => `SELECT id FROM ${src}.t WHERE id = ${i + 2 * k}`);
    out.push(`${members.join(' UNION ALL ')} ORDER BY 1`);
  }
  return out;
}

describe('shared pushdown plans answer as fresh plans do', () => {
  let storageDir: string;
  let deps: AppDeps;
  let shared: Engine;
  let fresh: Engine;
  let pgDb: { database: string; drop: () => Promise<void> };
  let pgOther: { database: string; drop: () => Promise<void> };
  let myDb: { database: string; drop: () => Promise<void> };

  before(async () => {
    pgDb = await createPgDatabase();
    pgOther = await createPgDatabase();
    myDb = await createMariaDatabase();
    await pgExec(pgDb.database, PG_FIXTURE);
    await pgExec(pgOther.database, `${PG_FIXTURE} UPDATE t SET name = 'other-' || id;`);
    await mariaExec(myDb.database, MARIA_FIXTURE);
    storageDir = mkdtempSync(join(tmpdir(), 'tributary-shape-'));
    const config = await loadConfig({
      argv: {},
      env: { TRIBUTARY_STORAGE_DIR: storageDir, TRIBUTARY_HTTP_PORT: '0', TRIBUTARY_MYSQL_PORT: '0' },
    });
    const logger = createLogger('silent');
    deps = await createDeps(config, logger);
    shared = deps.engine as Engine;
    fresh = new Engine({ sources: deps.sources, local: shared.local, logger, shapePlans: false });
    const made = [
      await shared.execute(
        `CREATE DATABASE pg WITH ENGINE = 'postgres', PARAMETERS = ${pgParams(pgDb.database)}`,
      ),
      await shared.execute(
        `CREATE DATABASE my WITH ENGINE = 'mariadb', PARAMETERS = ${mariaParams(myDb.database)}`,
      ),
    ];
    assert.deepEqual(made, [
      { type: 'ok', affected_rows: 1 },
      { type: 'ok', affected_rows: 1 },
    ]);
  });

  after(async () => {
    await deps?.engine.close();
    await deps?.catalog.close();
    if (storageDir) rmSync(storageDir, { recursive: true, force: true });
    await pgDb?.drop();
    await pgOther?.drop();
    await myDb?.drop();
  });

  /** Shared plans the engine holds now. */
  const sharedPlans = () => {
    const map = (shared as any).shapePlans.cache.map as Map<string, { value: unknown }>;
    return [...map.values()].filter((v) => v.value !== null).length;
  };

  /** Counts the statements the shared engine parses (a shared plan skips the parse). */
  function countParses(): { n: number; stop: () => void } {
    const templates = (shared as any).templates;
    const parse = templates.parse;
    const counter = { n: 0, stop: () => (templates.parse = parse) };
    templates.parse = (...args: unknown[]) => {
      counter.n++;
      return parse.apply(templates, args);
    };
    return counter;
  }

  async function same(sql: string, ctx: { db?: string } = {}): Promise<Result> {
    const a = await shared.execute(sql, { ...ctx });
    const b = await fresh.execute(sql, { ...ctx });
    assert.deepEqual(a, b, sql);
    return a;
  }

  /** `SELECT name FROM pg.t WHERE id = i` gives the one name `name`, on both engines. */
  async function expectName(i: number, name: string): Promise<void> {
    assert.deepEqual((await same(`SELECT name FROM pg.t WHERE id = ${i}`)) as any, {
      type: 'table',
      column_names: ['name'],
      data: [[name]],
    });
  }

  for (const src of ['pg', 'my']) {
    test(`${src}: lookups, ranges, IN lists and LIMITs with varying integers`, async () => {
      const parses = countParses();
      const all = statements(src);
      try {
        for (const sql of all) {
          const r = await same(sql);
          assert.equal(r.type, 'table', `${sql}: ${JSON.stringify(r)}`);
        }
      } finally {
        parses.stop();
      }
      // Each statement is new text: only the first of each shape and value class, and the
      // shape whose select list holds a slot (`qty + 1` is not shared), were parsed.
      assert.ok(parses.n < all.length / 2, `parsed ${parses.n} of ${all.length}`);
      assert.ok(sharedPlans() > 0);
    });

    test(`${src}: answers match the driver`, async () => {
      const ids = [5, 6, 250];
      const rows = async (sql: string) => {
        if (src === 'pg') {
          const c = new pg.Client({ ...PG, database: pgDb.database });
          await c.connect();
          try {
            return (await c.query({ text: sql, rowMode: 'array' })).rows;
          } finally {
            await c.end();
          }
        }
        const c = await mysql.createConnection({ ...MARIADB, database: myDb.database });
        try {
          return (await c.query({ sql, rowsAsArray: true }))[0] as unknown[][];
        } finally {
          await c.end();
        }
      };
      for (const id of ids) {
        const r = await same(
          `SELECT id, name, qty FROM ${src}.t WHERE id BETWEEN ${id} AND ${id + 2} ORDER BY id`,
        );
        assert.equal(r.type, 'table');
        assert.deepEqual(
          (r as any).data,
          await rows(`SELECT id, name, qty FROM t WHERE id BETWEEN ${id} AND ${id + 2} ORDER BY id`),
        );
      }
    });

    test(`${src}: a boolean column compared with 0 and 1`, async () => {
      const zero = await same(`SELECT COUNT(*) FROM ${src}.t WHERE flag = 0 AND id < 30`);
      const one = await same(`SELECT COUNT(*) FROM ${src}.t WHERE flag = 1 AND id < 30`);
      assert.deepEqual(
        [(zero as any).data, (one as any).data].map((d) => Number(d[0][0])),
        [20, 10],
      );
      // The other way round: a shape first seen with 1, then asked with 0.
      const first = await same(`SELECT id FROM ${src}.t WHERE flag = 1 AND id < 7 ORDER BY id`);
      const then = await same(`SELECT id FROM ${src}.t WHERE flag = 0 AND id < 7 ORDER BY id`);
      assert.deepEqual((first as any).data.flat().map(Number), [0, 3, 6]);
      assert.deepEqual((then as any).data.flat().map(Number), [1, 2, 4, 5]);
    });

    test(`${src}: labels come from each statement's own text`, async () => {
      for (const i of [3, 4]) {
        const r = await same(`SELECT id AS k, qty + ${i}, 'x' AS s FROM ${src}.t WHERE id = ${i}`);
        assert.deepEqual((r as any).column_names, ['k', `qty + ${i}`, 's']);
        assert.deepEqual((r as any).data[0].slice(0, 1).map(Number), [i]);
      }
    });

    test(`${src}: the default database is part of the shape`, async () => {
      for (const i of [8, 9]) {
        const r = await same(`SELECT name FROM t WHERE id = ${i}`, { db: src });
        assert.deepEqual((r as any).data, [[`item-${i}`]]);
      }
    });

    test(`${src}: read-only mode still refuses writes`, async () => {
      await same(`SELECT id FROM ${src}.t WHERE id = 11`);
      for (const sql of [`DELETE FROM ${src}.t WHERE id = 11`, `UPDATE ${src}.t SET qty = 1 WHERE id = 12`]) {
        const r = await shared.execute(sql, {}, { readOnly: true });
        assert.equal(r.type, 'error', sql);
        assert.equal((r as any).error_code, 1290, sql);
      }
      const still = await shared.execute(`SELECT id FROM ${src}.t WHERE id = 12`, {}, { readOnly: true });
      assert.deepEqual((still as any).data.flat().map(Number), [12]);
    });
  }

  test('a write clears shared plans', async () => {
    await same('SELECT id FROM pg.t WHERE id = 40');
    await same('SELECT id FROM pg.t WHERE id = 41');
    assert.ok(sharedPlans() > 0);
    const r = await shared.execute('UPDATE pg.t SET qty = qty WHERE id = 40');
    assert.equal(r.type, 'ok');
    assert.equal(sharedPlans(), 0);
  });

  test('cross-source statements share local plans and answer as fresh plans do', async () => {
    const parses = countParses();
    const sqls: string[] = [];
    // Values of one class each (never 0 or 1, but for the flag), so each shape is learnt once or twice.
    for (const i of [2, 17, 40, 77, 123, 150, 270]) {
      sqls.push(
        `SELECT a.id, b.name FROM pg.t a JOIN my.t b ON b.id = a.id WHERE a.id > ${i} AND b.qty = ${(i % 5) + 2} ORDER BY a.id`,
      );
      sqls.push(
        `SELECT b.qty, COUNT(*) FROM pg.t a JOIN my.t b ON b.id = a.id WHERE a.id IN (${i}, ${i + 3}, 9) GROUP BY b.qty ORDER BY 1`,
      );
      sqls.push(
        `SELECT a.id FROM pg.t a WHERE a.id < ${(i % 40) + 2} AND a.flag = ${i % 2} UNION ALL SELECT b.id FROM my.t b WHERE b.id = ${i} ORDER BY 1`,
      );
    }
    try {
      for (const sql of sqls) {
        const r = await same(sql);
        assert.equal(r.type, 'table', `${sql}: ${JSON.stringify(r)}`);
      }
    } finally {
      parses.stop();
    }
    const local = [...((shared as any).shapePlans.cache.map as Map<string, { value: any }>).values()].filter(
      (v) => v.value?.kind === 'local',
    );
    assert.ok(local.length >= 2, `${local.length} local shape plans`);
    assert.ok(parses.n <= 5, `parsed ${parses.n} of ${sqls.length}`);
  });

  test('DROP DATABASE and a new source of the same name: its plans are its own', async () => {
    await expectName(20, 'item-20');
    await expectName(21, 'item-21');
    assert.equal((await shared.execute('DROP DATABASE pg')).type, 'ok');
    const gone = await shared.execute('SELECT name FROM pg.t WHERE id = 22');
    assert.equal(gone.type, 'error');
    const made = await shared.execute(
      `CREATE DATABASE pg WITH ENGINE = 'postgres', PARAMETERS = ${pgParams(pgOther.database)}`,
    );
    assert.equal(made.type, 'ok');
    for (const i of [22, 23]) {
      await expectName(i, `other-${i}`);
    }
  });

  test('a source re-created behind the engine (another replica) is a new plan', async () => {
    await expectName(30, 'other-30');
    await expectName(31, 'other-31');
    await deps.sources.drop('pg');
    await deps.sources.create('pg', 'postgres', JSON.parse(pgParams(pgDb.database)));
    for (const i of [32, 33]) {
      await expectName(i, `item-${i}`);
    }
  });
});
