/**
 * Result column origins (sql/plan/origins.ts): which output columns are plain columns of a
 * source table, under which alias, and with which flags; planning only, sources described.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { ColumnInfo, ColumnOrigin } from '../../../../src/core/types.js';
import type { Source } from '../../../../src/sources/types.js';
import { parseStatement } from '../../../../src/sql/parse/index.js';
import { bindTables } from '../../../../src/sql/plan/bind.js';
import { planQuery } from '../../../../src/sql/plan/planner.js';

const TABLES: Record<string, ColumnInfo[]> = {
  orders: [
    {
      name: 'id',
      type: 'INT',
      nativeType: 'int(10) unsigned',
      nullable: false,
      key: 'PRI',
      autoIncrement: true,
    },
    { name: 'customer_id', type: 'INT', nativeType: 'int', nullable: false, key: 'MUL', default: null },
    { name: 'note', type: 'TEXT', nativeType: 'text', nullable: true, key: '' },
  ],
  customers: [
    { name: 'id', type: 'INT', nativeType: 'integer', nullable: false, key: 'PRI', default: '0' },
    { name: 'email', type: 'VARCHAR', nativeType: 'varchar(40)', nullable: false, key: 'UNI', default: 'x' },
  ],
};
const source = (name: string, dialect: Source['dialect']) =>
  ({
    name,
    dialect,
    engine: dialect,
    defaultSchema: 'public',
    capabilities: { fullStatements: true, projection: true, filters: 'exact', limit: true },
  }) as unknown as Source;
const SOURCES: Record<string, Source> = { pg: source('pg', 'postgres'), my: source('my', 'mysql') };

async function origins(sql: string): Promise<(ColumnOrigin | null)[] | undefined> {
  const stmt = parseStatement(sql, (n) => n.toLowerCase() in SOURCES);
  if (stmt.kind !== 'sql') throw new Error('expected sql');
  const p = await planQuery(stmt.ast, bindTables(stmt.ast, {}), {
    source: async (n) => SOURCES[n.toLowerCase()],
    columns: async (_s, _schema, table) => TABLES[table],
  });
  return p.origins;
}

const brief = (o: ColumnOrigin | null) =>
  o ? `${o.schema}.${o.table}(${o.orgTable}).${o.orgName}:${o.flags}` : null;

test('a pushed-down statement: alias, own names and flags; expressions have none', async () => {
  assert.deepEqual((await origins('SELECT o.id AS k, note, o.id + 1 FROM pg.orders o'))?.map(brief), [
    'pg.o(orders).id:547',
    'pg.o(orders).note:0',
    null,
  ]);
  assert.deepEqual((await origins('SELECT * FROM pg.customers'))?.map(brief), [
    'pg.customers(customers).id:3',
    'pg.customers(customers).email:5',
  ]);
});

test('across sources: each column keeps its source; the NULL side of an outer join is not NOT NULL', async () => {
  assert.deepEqual(
    (
      await origins(
        'SELECT o.customer_id, c.* FROM my.orders o LEFT JOIN pg.customers c ON c.id = o.customer_id',
      )
    )?.map(brief),
    ['my.o(orders).customer_id:4105', 'pg.c(customers).id:2', 'pg.c(customers).email:4'],
  );
  assert.deepEqual(
    (
      await origins('SELECT o.id, c.id FROM my.orders o RIGHT JOIN pg.customers c ON c.id = o.customer_id')
    )?.map(brief),
    ['my.o(orders).id:546', 'pg.c(customers).id:3'],
  );
});

test('what cannot be told: an ambiguous name, a derived table, a star over USING, a UNION', async () => {
  assert.deepEqual(
    (await origins('SELECT id FROM pg.orders o JOIN my.customers c ON c.id = o.id'))?.map(brief),
    [null],
    'id is a column of both',
  );
  assert.deepEqual(
    (await origins('SELECT d.id, o.note FROM (SELECT 1 AS id) d JOIN pg.orders o ON o.id = d.id'))?.map(
      brief,
    ),
    [null, 'pg.o(orders).note:0'],
  );
  assert.equal(await origins('SELECT * FROM pg.orders JOIN pg.customers USING (id)'), undefined);
  assert.equal(await origins('SELECT id FROM pg.orders UNION SELECT id FROM pg.customers'), undefined);
});
