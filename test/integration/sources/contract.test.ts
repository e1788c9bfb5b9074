/**
 * One contract, every engine (DBHub's shared connector test): what the engine relies on of a
 * source, checked against each real database. An engine's own quirks stay in its own file.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { DuckDBInstance } from '@duckdb/node-api';
import pino from 'pino';
import { SqlError } from '../../../src/core/errors.js';
import { parseEngineParams } from '../../../src/sources/params.js';
import { getEngine } from '../../../src/sources/registry.js';
import { Database } from '../../../src/sources/sqlite/driver.js';
import { collect, type Source } from '../../../src/sources/types.js';
import { createMariaDatabase, createPgDatabase, mariaExec, pgExec } from '../../helpers/services.js';
import { fixture } from '../../unit/sources/files/helpers.js';
import { expectSqlError } from './helpers.js';

const ctx = { storageDir: '/tmp', logger: pino({ level: 'silent' }) };

function make(engine: string, name: string, params: Record<string, unknown>): Source {
  const spec = getEngine(engine);
  return spec.create(name, parseEngineParams(spec, params), ctx);
}

/** The same three rows everywhere; 2,000 more in `many` for batching. */
const ROWS = "(1, 'apple', 1.50, NULL), (2, 'Pear', 2.25, 'x'), (3, 'fig', 4.00, 'y')";
const CSV = 'id,name,amount,note\n1,apple,1.50,\n2,Pear,2.25,x\n3,fig,4.00,y\n';
const MANY = 2000;

interface Engine {
  name: string;
  /** A source holding `items` (id primary key, name, amount, note) and `many` (id 1..2000). */
  open(): Promise<{ source: Source; reopen: () => Source | Promise<Source>; cleanup: () => Promise<void> }>;
}

const engines: Engine[] = [
  {
    name: 'postgres',
    async open() {
      const { database, drop } = await createPgDatabase('contract_pg');
      await pgExec(
        database,
        `CREATE TABLE items (id int PRIMARY KEY, name varchar(20), amount numeric(10,2), note text);
         INSERT INTO items VALUES ${ROWS};
         CREATE TABLE many AS SELECT g AS id FROM generate_series(1, ${MANY}) g;`,
      );
      const params = { host: '127.0.0.1', user: 'postgres', database };
      return {
        source: make('postgres', 'c_pg', params),
        reopen: () => make('postgres', 'c_pg2', params),
        cleanup: drop,
      };
    },
  },
  ...['mariadb', 'mysql'].map(
    (engine): Engine => ({
      name: engine,
      async open() {
        const { database, drop } = await createMariaDatabase(`contract_${engine}`);
        await mariaExec(
          database,
          `CREATE TABLE items (id INT PRIMARY KEY, name VARCHAR(20), amount DECIMAL(10,2), note TEXT NULL);
           INSERT INTO items VALUES ${ROWS};
           CREATE TABLE many AS SELECT seq AS id FROM seq_1_to_${MANY};`,
        );
        const params = { host: '127.0.0.1', user: 'root', database };
        return {
          source: make(engine, `c_${engine}`, params),
          reopen: () => make(engine, `c_${engine}2`, params),
          cleanup: drop,
        };
      },
    }),
  ),
  {
    name: 'sqlite',
    async open() {
      const dir = mkdtempSync(join(tmpdir(), 'contract-sqlite-'));
      const path = join(dir, 'c.db');
      const db = new Database(path);
      db.exec(`CREATE TABLE items (id INTEGER PRIMARY KEY, name VARCHAR(20), amount DECIMAL(10,2), note TEXT);
        INSERT INTO items VALUES ${ROWS};
        CREATE TABLE many (id INTEGER);
        WITH RECURSIVE g(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM g WHERE n < ${MANY}) INSERT INTO many SELECT n FROM g;`);
      db.close();
      return {
        source: make('sqlite', 'c_sqlite', { path }),
        reopen: () => make('sqlite', 'c_sqlite2', { path }),
        cleanup: async () => rmSync(dir, { recursive: true, force: true }),
      };
    },
  },
  {
    name: 'duckdb',
    async open() {
      const dir = mkdtempSync(join(tmpdir(), 'contract-duckdb-'));
      const path = join(dir, 'c.duckdb');
      const inst = await DuckDBInstance.create(path);
      const c = await inst.connect();
      await c.run(`CREATE TABLE items (id INTEGER PRIMARY KEY, name VARCHAR, amount DECIMAL(10,2), note VARCHAR);
        INSERT INTO items VALUES ${ROWS};
        CREATE TABLE many AS SELECT range AS id FROM range(1, ${MANY + 1});`);
      c.closeSync();
      inst.closeSync();
      return {
        source: make('duckdb', 'c_duck', { path }),
        reopen: () => make('duckdb', 'c_duck2', { path }),
        cleanup: async () => rmSync(dir, { recursive: true, force: true }),
      };
    },
  },
  {
    name: 'files',
    async open() {
      const fx = await fixture();
      await fx.put('items', CSV, { format: 'csv' });
      await fx.put('many', `id\n${Array.from({ length: MANY }, (_, i) => i + 1).join('\n')}\n`, {
        format: 'csv',
      });
      return {
        source: fx.files,
        // The files source is one per storage dir; closing it is the last test's business.
        reopen: () => fx.files,
        cleanup: () => fx.close().catch(() => {}),
      };
    },
  },
];

for (const engine of engines) {
  describe(`source contract: ${engine.name}`, () => {
    let src: Source;
    let reopen: () => Source | Promise<Source>;
    let cleanup: () => Promise<void>;
    before(async () => {
      ({ source: src, reopen, cleanup } = await engine.open());
    });
    after(async () => {
      await src?.close().catch(() => {});
      await cleanup?.();
    });

    test('names its engine and a SQL dialect, and test() connects', async () => {
      assert.equal(src.engine, engine.name);
      assert.ok(src.dialect, 'a SQL source has a dialect');
      assert.equal(typeof src.capabilities, 'object');
      await src.test();
    });

    test('lists its tables', async () => {
      const names = (await src.listTables()).map((t) => t.name.toLowerCase());
      assert.ok(names.includes('items') && names.includes('many'), names.join(', '));
    });

    test('lists columns in order, with MySQL types and nullability', async () => {
      const cols = await src.listColumns('items');
      assert.deepEqual(
        cols.map((c) => c.name),
        ['id', 'name', 'amount', 'note'],
      );
      assert.match(cols[0].type, /INT/);
      assert.match(cols[1].type, /CHAR|TEXT/);
      assert.match(cols[2].type, /DECIMAL|DOUBLE/);
      assert.equal(cols[3].nullable, true);
    });

    test('an unknown table is 1146 naming the source and the table', async () => {
      const e = await expectSqlError(src.listColumns('no_such_table'), 1146, /no_such_table/);
      assert.match(e.message, new RegExp(`${src.name}\\.`));
    });

    test('rows come back canonical: numbers, text, exact decimals, NULL', async () => {
      const stream = await src.query('SELECT id, name, amount, note FROM items ORDER BY id');
      assert.deepEqual(
        stream.columns.map((c) => c.name),
        ['id', 'name', 'amount', 'note'],
      );
      const { rows } = await collect(stream);
      assert.deepEqual(
        rows.map((r) => [Number(r[0]), r[1], Number(r[2]), r[3]]),
        [
          [1, 'apple', 1.5, null],
          [2, 'Pear', 2.25, 'x'],
          [3, 'fig', 4, 'y'],
        ],
      );
    });

    test('an unknown column is 1054', async () => {
      await expectSqlError(src.query('SELECT no_such_column FROM items'), 1054, /no_such_column/);
    });

    test('a large result arrives in batches, all of it', async () => {
      const stream = await src.query('SELECT id FROM many', { batchRows: 500 });
      let n = 0;
      let sum = 0;
      for await (const batch of stream.batches) {
        assert.ok(batch.length <= MANY);
        n += batch.length;
        for (const r of batch) sum += Number(r[0]);
      }
      assert.equal(n, MANY);
      assert.equal(sum, (MANY * (MANY + 1)) / 2);
    });

    test('leaving a result early gives the connection back', async () => {
      for (let i = 0; i < 12; i++) {
        const stream = await src.query('SELECT id FROM many', { batchRows: 100 });
        for await (const _ of stream.batches) break;
      }
      const [[count]] = (await collect(await src.query('SELECT COUNT(*) FROM items'))).rows;
      assert.equal(Number(count), 3);
    });

    test('an aborted statement rejects and the source keeps working', async () => {
      const ac = new AbortController();
      ac.abort();
      await assert.rejects(
        async () => collect(await src.query('SELECT id FROM many', { signal: ac.signal })),
        (e: unknown) => e instanceof SqlError,
      );
      assert.equal((await collect(await src.query('SELECT id FROM items WHERE id = 2'))).rows.length, 1);
    });

    test('a closed source refuses work with an error, and closing twice is harmless', async () => {
      const s = await reopen();
      await s.test();
      await s.close();
      await s.close();
      await assert.rejects(s.query('SELECT 1'), (e: unknown) => e instanceof SqlError);
    });
  });
}
