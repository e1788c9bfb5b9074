import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import pino from 'pino';
import { SqlError } from '../../../../src/core/errors.js';
import { FilesSource } from '../../../../src/sources/files/index.js';
import type { TableWrite } from '../../../../src/sources/types.js';
import { type Fixture, fixture } from './helpers.js';

let fx: Fixture;
before(async () => {
  fx = await fixture();
  await fx.put('items', 'id,name,price\n1,apple,1.5\n2,pear,2.25\n3,fig,4\n', { format: 'csv' });
});
after(async () => {
  await fx.close();
});

const write = (op: TableWrite) => fx.files.writeTable(op);
const createAs = (table: string, select: string, ifNotExists = false) =>
  write({ kind: 'create_as', table, select, ifNotExists });
const drop = (table: string, ifExists = false) => write({ kind: 'drop', table, ifExists });
const change = (table: string, sql: string) => write({ kind: 'change', table, sql });

async function sqlError(p: Promise<unknown>, code: number, pattern: RegExp): Promise<void> {
  await assert.rejects(p, (e: unknown) => {
    assert.ok(e instanceof SqlError, `expected SqlError, got ${e}`);
    assert.equal(e.code, code);
    assert.match(e.message, pattern);
    return true;
  });
}

test('tables are listed with their schema and columns', async () => {
  const tables = await fx.files.listTables();
  // rows: the exact count (the schema resources' TABLE_ROWS).
  assert.deepEqual(tables, [{ name: 'items', schema: 'main', type: 'BASE TABLE', rows: 3, comment: '' }]);
  await sqlError(fx.files.listColumns('nope'), 1146, /files\.nope/);
  await sqlError(fx.files.query('SELECT * FROM "nope"'), 1146, /Table 'files\.nope' doesn't exist/);
  await sqlError(fx.files.query('SELECT nocol FROM "items"'), 1054, /nocol/);
});

test('CREATE TABLE AS SELECT stores a new file table; DROP TABLE removes it and its file', async () => {
  const r = await createAs('cheap', 'SELECT id, name FROM "items" WHERE price < 3');
  assert.deepEqual(r, { affectedRows: 2 });
  const rec = fx.files.get('cheap')!;
  assert.equal(rec.format, 'sql');
  assert.equal(rec.rows, 2);
  assert.ok(existsSync(join(fx.dir, rec.storagePath)));
  assert.ok(fx.store.records.has('cheap'));
  assert.deepEqual(await fx.rows('SELECT name FROM cheap ORDER BY id'), [['apple'], ['pear']]);
  await sqlError(createAs('cheap', 'SELECT 1'), 1050, /already exists/);
  assert.deepEqual(await createAs('cheap', 'SELECT 1', true), {
    affectedRows: 0,
  });

  await drop('cheap');
  assert.equal(fx.files.get('cheap'), null);
  assert.ok(!fx.store.records.has('cheap'));
  assert.ok(!existsSync(join(fx.dir, rec.storagePath)));
  await sqlError(drop('cheap'), 1051, /Unknown table 'files\.cheap'/);
  await drop('cheap', true);
  await sqlError(createAs('bad-name', 'SELECT 1'), 1103, /Invalid file table name/);
});

test('rows streamed from another source become a file table in one pass', async () => {
  async function* batches() {
    yield [
      [1, 'a', '2024-01-02', '10.50'],
      [2, null, null, null],
    ];
    yield [[3, "it's", '2024-03-04', '-1.25']];
  }
  const n = await fx.files.createTableFromStream(
    'streamed',
    [
      { name: 'id', type: 'BIGINT' },
      { name: 'label', type: 'VARCHAR' },
      { name: 'day', type: 'DATE' },
      { name: 'amount', type: 'DECIMAL' },
    ],
    batches(),
  );
  assert.equal(n, 3);
  assert.deepEqual(await fx.rows('SELECT * FROM streamed ORDER BY id'), [
    [1, 'a', '2024-01-02', '10.5000000000'],
    [2, null, null, null],
    [3, "it's", '2024-03-04', '-1.2500000000'],
  ]);
  const cols = await fx.files.listColumns('streamed');
  assert.deepEqual(
    cols.map((c) => c.type),
    ['BIGINT', 'VARCHAR', 'DATE', 'DECIMAL'],
  );
});

test('CREATE TABLE with columns then INSERT, UPDATE and DELETE rewrite the stored file', async () => {
  await write({
    kind: 'create',
    table: 'log',
    ifNotExists: false,
    sqlFor: (name) => `CREATE TABLE "${name}" ("id" BIGINT, "msg" VARCHAR)`,
  });
  assert.equal(fx.files.get('log')?.rows, 0);
  assert.deepEqual(await change('log', `INSERT INTO "log" ("id", "msg") VALUES (1, 'a'), (2, 'b')`), {
    affectedRows: 2,
  });
  assert.deepEqual(await change('log', `INSERT INTO "log" SELECT id + 10, name FROM "items"`), {
    affectedRows: 3,
  });
  assert.deepEqual(await change('log', `UPDATE "log" SET msg = upper(msg) WHERE id < 10`), {
    affectedRows: 2,
  });
  assert.deepEqual(await change('log', `DELETE FROM "log" WHERE id = 12`), { affectedRows: 1 });
  assert.equal(fx.files.get('log')?.rows, 4);
  assert.deepEqual(await fx.rows('SELECT * FROM log ORDER BY id'), [
    [1, 'A'],
    [2, 'B'],
    [11, 'apple'],
    [13, 'fig'],
  ]);
  await sqlError(fx.files.execute(), 1235, /files source supports/);
});

test('a restart rebuilds the tables from the catalog records', async () => {
  const again = await FilesSource.open({
    storageDir: fx.dir,
    store: fx.store,
    logger: pino({ level: 'silent' }),
  });
  try {
    assert.ok((await again.listTables()).some((t) => t.name === 'items'));
    const { collect } = await import('../../../../src/sources/types.js');
    const { rows } = await collect(await again.query('SELECT count(*) FROM items'));
    assert.deepEqual(rows, [[3]]);
  } finally {
    await again.close();
  }
});

test('a table added to the catalog by another process is found on first use', async () => {
  const other = await FilesSource.open({
    storageDir: fx.dir,
    store: fx.store,
    logger: pino({ level: 'silent' }),
  });
  try {
    const { Readable } = await import('node:stream');
    await other.upload('from_cli', Readable.from([Buffer.from('x\n42\n')]), {
      format: 'csv',
      maxBytes: 1000,
    });
  } finally {
    await other.close();
  }
  assert.deepEqual(await fx.rows('SELECT x FROM from_cli'), [[42]]);
});
