/**
 * A KB's metadata conditions mean what MySQL means (SPEC section 8, "A search is a
 * relation"): every operator, numbers as numbers (a DECIMAL arrives as text), dates as
 * dates, text under the default collation (case, accents, trailing spaces). The oracle is
 * MariaDB itself: the same rows in a typed table with utf8mb4_general_ci, the same condition
 * as SQL. Both stores' evaluations are compared with it: the embedded store's tests
 * (kb/filters.ts) and the PostgreSQL store's SQL (kb/store/pg-filters.ts) run on a real
 * PostgreSQL over the rows as the store keeps them (metadata as jsonb).
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import mysql from 'mysql2/promise';
import pg from 'pg';
import type { MysqlType } from '../../../src/core/types.js';
import { compileConditions, conditionSupport, resolveConditions } from '../../../src/kb/filters.js';
import { filterSql } from '../../../src/kb/store/pg-filters.js';
import type { KbCondition } from '../../../src/sql/kb-port.js';
import { createMariaDatabase, createPgDatabase, MARIADB, PG } from '../../helpers/services.js';

/** Rows as the store keeps them: DECIMAL and dates as text, as the sources hand them over. */
const ROWS: Record<string, unknown>[] = [
  { id: '1', amount: '7.25', n: 1, priority: 'urgent', d: '2024-01-05', dt: '2024-01-05 10:00:00' },
  { id: '2', amount: '400.00', n: 20, priority: 'URGENT', d: '2023-12-31', dt: '2023-12-31 23:59:59' },
  { id: '3', amount: '150.50', n: 3, priority: 'Urgent ', d: '2024-02-29', dt: '2024-02-29 00:00:00' },
  { id: '4', amount: '1000.00', n: 100, priority: 'low', d: null, dt: null },
  { id: '5', amount: null, n: null, priority: 'Élan', d: '2024-01-10', dt: '2024-01-10 08:30:00' },
  { id: '6', amount: '99.99', n: 7, priority: null, d: '2024-03-01', dt: '2024-03-01 12:00:00' },
  { id: '7', amount: '200.00', n: 2, priority: 'elan', d: '2024-01-05', dt: '2024-01-05 00:00:00' },
  { id: '8', amount: '-5.00', n: -5, priority: 'a_b%', d: '2022-06-15', dt: '2022-06-15 06:15:00' },
];
const TYPES: Record<string, MysqlType> = {
  amount: 'DECIMAL',
  n: 'INT',
  priority: 'VARCHAR',
  d: 'DATE',
  dt: 'DATETIME',
};
const COLS = { metadata: Object.keys(TYPES), types: TYPES };

const leaf = (
  column: string,
  op: KbCondition extends infer C ? (C extends { op: infer O } ? O : never) : never,
  value: unknown,
) => ({ column, op, value }) as KbCondition;

/** [the condition, the same as MySQL text]. */
const CASES: [KbCondition, string][] = [
  [leaf('amount', '>', '400'), `amount > '400'`],
  [leaf('amount', '>', 100), 'amount > 100'],
  [leaf('amount', '=', 400), 'amount = 400'],
  [leaf('amount', 'BETWEEN', [100, 200]), 'amount BETWEEN 100 AND 200'],
  [leaf('amount', 'NOT BETWEEN', [100, 200]), 'amount NOT BETWEEN 100 AND 200'],
  [leaf('amount', 'IN', [7.25, 99.99]), 'amount IN (7.25, 99.99)'],
  [leaf('amount', 'NOT IN', [7.25, 99.99]), 'amount NOT IN (7.25, 99.99)'],
  [leaf('amount', '<=', '-5'), `amount <= '-5'`],
  [leaf('amount', 'IS NULL', null), 'amount IS NULL'],
  [leaf('amount', 'IS NOT NULL', null), 'amount IS NOT NULL'],
  [leaf('n', '<', 10), 'n < 10'],
  [leaf('n', '>=', '20'), `n >= '20'`],
  [leaf('n', '!=', 3), 'n <> 3'],
  [leaf('n', 'LIKE', '1%'), `n LIKE '1%'`],
  [leaf('priority', '=', 'URGENT '), `priority = 'URGENT '`],
  [leaf('priority', '=', 'urgent'), `priority = 'urgent'`],
  [leaf('priority', '=', 'ELAN'), `priority = 'ELAN'`],
  [leaf('priority', '!=', 'urgent'), `priority <> 'urgent'`],
  [leaf('priority', '<', 'm'), `priority < 'm'`],
  [leaf('priority', '>', 'b'), `priority > 'b'`],
  [leaf('priority', 'IN', ['LOW', 'elan']), `priority IN ('LOW', 'elan')`],
  [leaf('priority', 'NOT IN', ['LOW', 'elan']), `priority NOT IN ('LOW', 'elan')`],
  [leaf('priority', 'LIKE', 'urg%'), `priority LIKE 'urg%'`],
  [leaf('priority', 'LIKE', 'urgent'), `priority LIKE 'urgent'`],
  [leaf('priority', 'LIKE', 'a\\_b\\%'), `priority LIKE 'a\\\\_b\\\\%'`],
  [leaf('priority', 'NOT LIKE', '%an'), `priority NOT LIKE '%an'`],
  [leaf('priority', 'LIKE', 'e_an'), `priority LIKE 'e_an'`],
  [leaf('priority', 'BETWEEN', ['a', 'm']), `priority BETWEEN 'a' AND 'm'`],
  [leaf('priority', 'IS NULL', null), 'priority IS NULL'],
  [leaf('d', '>', '2024-01-05'), `d > '2024-01-05'`],
  [leaf('d', '=', '2024-1-5'), `d = '2024-1-5'`],
  [leaf('d', 'BETWEEN', ['2024-01-01', '2024-01-31']), `d BETWEEN '2024-01-01' AND '2024-01-31'`],
  [leaf('d', '<', '2024-01-05 12:00:00'), `d < '2024-01-05 12:00:00'`],
  [leaf('dt', '>=', '2024-01-05'), `dt >= '2024-01-05'`],
  [leaf('dt', '=', '2024-01-05'), `dt = '2024-01-05'`],
  [
    leaf('dt', 'IN', ['2024-01-05 10:00:00', '2022-06-15 06:15:00']),
    `dt IN ('2024-01-05 10:00:00', '2022-06-15 06:15:00')`,
  ],
  [leaf('id', '=', 3), 'id = 3'],
  [leaf('id', 'IN', ['1', '2']), `id IN ('1', '2')`],
  [{ or: [leaf('priority', '=', 'low'), leaf('amount', '<', 100)] }, `(priority = 'low' OR amount < 100)`],
  [
    { and: [leaf('n', '>', 1), { or: [leaf('d', 'IS NULL', null), leaf('priority', 'LIKE', '%u%')] }] },
    `(n > 1 AND (d IS NULL OR priority LIKE '%u%'))`,
  ],
  // NOT folded into the leaves, as the planner folds it: NOT (a OR b) = NOT a AND NOT b.
  [
    { and: [leaf('priority', '!=', 'low'), leaf('amount', '>=', 100)] },
    `NOT (priority = 'low' OR amount < 100)`,
  ],
];

describe('knowledge-base conditions compare as MySQL compares (oracle: MariaDB)', () => {
  let maria: { database: string; drop: () => Promise<void> };
  let pgdb: { database: string; drop: () => Promise<void> };
  let m: mysql.Connection;
  let p: pg.Client;

  before(async () => {
    maria = await createMariaDatabase('kbfilt');
    m = await mysql.createConnection({ ...MARIADB, database: maria.database });
    await m.query(`ALTER DATABASE \`${maria.database}\` CHARACTER SET utf8mb4 COLLATE utf8mb4_general_ci`);
    await m.query(
      `CREATE TABLE t (id VARCHAR(10), amount DECIMAL(10,2), n INT, priority VARCHAR(20), d DATE, dt DATETIME) CHARACTER SET utf8mb4 COLLATE utf8mb4_general_ci`,
    );
    for (const r of ROWS)
      await m.query('INSERT INTO t VALUES (?, ?, ?, ?, ?, ?)', [r.id, r.amount, r.n, r.priority, r.d, r.dt]);
    pgdb = await createPgDatabase('kbfilt');
    p = new pg.Client({ ...PG, database: pgdb.database });
    await p.connect();
    await p.query('CREATE TABLE c (id text, chunk_id text, content text, metadata jsonb)');
    for (const r of ROWS) {
      const { id, ...meta } = r;
      await p.query('INSERT INTO c VALUES ($1, $2, $3, $4)', [
        id,
        `${id}:0`,
        `text ${id}`,
        JSON.stringify(meta),
      ]);
    }
  });
  after(async () => {
    await m?.end();
    await p?.end();
    await maria?.drop();
    await pgdb?.drop();
  });

  for (const [cond, sql] of CASES) {
    test(sql, async () => {
      assert.equal(conditionSupport(cond, COLS), 'exact', 'the KB takes it exactly');
      const [rows] = await m.query(`SELECT id FROM t WHERE ${sql} ORDER BY id`);
      const want = (rows as { id: string }[]).map((r) => r.id);

      const tests = compileConditions('k', [cond], COLS);
      const embedded = ROWS.filter((r) =>
        tests.every((t) => ('row' in t ? t.row((c) => r[c] ?? null) : t.test(r[t.column] ?? null))),
      ).map((r) => String(r.id));
      assert.deepEqual(embedded, want, 'embedded store');

      const params: unknown[] = [];
      const where = filterSql(resolveConditions('k', [cond], COLS), params);
      const got = await p.query(`SELECT id FROM c WHERE ${where} ORDER BY id`, params);
      assert.deepEqual(
        got.rows.map((r) => r.id),
        want,
        'PostgreSQL store',
      );
    });
  }

  test('what a store cannot say as MySQL does is left to the local engine', () => {
    assert.equal(conditionSupport(leaf('priority', '=', 5), COLS), 'unsupported', 'text = number');
    assert.equal(conditionSupport(leaf('d', '>', 'soon'), COLS), 'unsupported', 'a date with a non-date');
    assert.equal(conditionSupport(leaf('colour', '=', 'x'), COLS), 'unsupported', 'unknown column');
    assert.equal(
      conditionSupport({ or: [leaf('n', '=', 1), leaf('priority', '=', 1)] }, COLS),
      'unsupported',
      'a tree with one unsupported leaf',
    );
  });
});
