/** The schema resources carry what an agent needs to join: nullability, keys, comments, foreign keys, row estimates. */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { mariaParams, pgParams, startTestServer, type TestServer } from '../../helpers/server.js';
import { createMariaDatabase, createPgDatabase, mariaExec, pgExec } from '../../helpers/services.js';

let server: TestServer;
let client: Client;
let pgdb: Awaited<ReturnType<typeof createPgDatabase>>;
let mdb: Awaited<ReturnType<typeof createMariaDatabase>>;

before(async () => {
  pgdb = await createPgDatabase('res');
  await pgExec(
    pgdb.database,
    `CREATE TABLE customers (id int PRIMARY KEY, email text UNIQUE NOT NULL, city text);
     COMMENT ON TABLE customers IS 'people who buy';
     COMMENT ON COLUMN customers.city IS 'billing city';
     CREATE TABLE orders (id int PRIMARY KEY, customer_id int NOT NULL REFERENCES customers(id), total numeric(10,2));
     CREATE INDEX orders_customer ON orders(customer_id);
     INSERT INTO customers SELECT g, 'c' || g || '@x', 'Oslo' FROM generate_series(1, 50) g;
     ANALYZE customers;`,
  );
  mdb = await createMariaDatabase('res');
  await mariaExec(
    mdb.database,
    `CREATE TABLE customers (id int PRIMARY KEY, email varchar(100) UNIQUE NOT NULL, city varchar(50) COMMENT 'billing city') COMMENT 'people who buy';
     CREATE TABLE orders (id int PRIMARY KEY, customer_id int NOT NULL, total decimal(10,2), FOREIGN KEY (customer_id) REFERENCES customers(id)) ENGINE=InnoDB;`,
  );
  server = await startTestServer();
  for (const [name, engine, params] of [
    ['pg', 'postgres', pgParams(pgdb.database)],
    ['maria', 'mariadb', mariaParams(mdb.database)],
  ]) {
    const r = await server.sql(`CREATE DATABASE ${name} WITH ENGINE = '${engine}', PARAMETERS = ${params}`);
    assert.equal(r.type, 'ok', JSON.stringify(r));
  }
  client = new Client({ name: 'schema-test', version: '1.0.0' });
  await client.connect(new StreamableHTTPClientTransport(new URL(`${server.url}/mcp`)));
});

after(async () => {
  await client?.close();
  await server?.stop();
  await pgdb?.drop();
  await mdb?.drop();
});

async function read(uri: string): Promise<any> {
  const r = await client.readResource({ uri });
  return JSON.parse(String((r.contents[0] as { text?: string }).text));
}

describe('schema resources', () => {
  for (const db of ['pg', 'maria']) {
    test(`${db}: columns say nullability, keys, comments and foreign keys`, async () => {
      const cols = await read(`schema://databases/${db}/tables/orders/columns`);
      const byName = Object.fromEntries(cols.map((c: any) => [c.COLUMN_NAME, c]));
      assert.deepEqual(byName.id, {
        COLUMN_NAME: 'id',
        MYSQL_DATA_TYPE: 'INT',
        IS_NULLABLE: 'NO',
        COLUMN_KEY: 'PRI',
        COLUMN_COMMENT: '',
        REFERENCES: null,
      });
      assert.equal(byName.customer_id.REFERENCES, 'customers.id');
      assert.equal(byName.customer_id.COLUMN_KEY, 'MUL');
      assert.equal(byName.total.IS_NULLABLE, 'YES');
      const cust = await read(`schema://databases/${db}/tables/customers/columns`);
      const email = cust.find((c: any) => c.COLUMN_NAME === 'email');
      assert.equal(email.COLUMN_KEY, 'UNI');
      assert.equal(cust.find((c: any) => c.COLUMN_NAME === 'city').COLUMN_COMMENT, 'billing city');
    });

    test(`${db}: tables carry a row estimate and their comment`, async () => {
      const tables = await read(`schema://databases/${db}/tables`);
      const customers = tables.find((t: any) => t.TABLE_NAME === 'customers');
      assert.equal(customers.TABLE_COMMENT, 'people who buy');
      assert.equal(customers.TABLE_TYPE, 'BASE TABLE');
      assert.ok(customers.TABLE_ROWS === null || typeof customers.TABLE_ROWS === 'number');
      if (db === 'pg') assert.equal(customers.TABLE_ROWS, 50);
    });
  }

  test('files: exact row count; the table list names each engine', async () => {
    const put = await fetch(`${server.url}/api/files/sales`, {
      method: 'PUT',
      headers: { 'content-type': 'text/csv' },
      body: 'id,amount\n1,2.5\n2,3\n3,4\n',
    });
    assert.equal(put.status, 201, await put.text());
    const tables = await read('schema://databases/files/tables');
    assert.equal(tables.find((t: any) => t.TABLE_NAME === 'sales').TABLE_ROWS, 3);
    const { resources } = await client.listResources();
    const pgTables = resources.find((r) => r.uri === 'schema://databases/pg/tables');
    assert.match(String(pgTables?.description), /engine postgres/);
    assert.match(
      String(resources.find((r) => r.uri === 'schema://databases/maria/tables')?.description),
      /engine mariadb/,
    );
  });
});
