import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { after, afterEach, before, describe, test } from 'node:test';
import pg from 'pg';
import { openCatalog } from '../../../src/catalog/index.js';
import { PgCatalogStore, parseCatalogUrl, redactUrl } from '../../../src/catalog/pg-store.js';
import type { CatalogStore } from '../../../src/catalog/types.js';
import { loadConfig } from '../../../src/config/load.js';
import { createLogger } from '../../../src/core/logger.js';
import { createPgDatabase, PG, uniqueName } from '../../helpers/services.js';
import { nextChange, sourceRecord, storeContract } from '../../unit/catalog/store-contract.js';

const key = randomBytes(32);
let db: { database: string; drop: () => Promise<void> };
let opened: CatalogStore[] = [];

before(async () => {
  db = await createPgDatabase('tribcat');
});
afterEach(async () => {
  await Promise.all(opened.map((s) => s.close()));
  opened = [];
});
after(async () => {
  await db?.drop();
});

function catalogUrl(schema?: string): string {
  return `postgres://${PG.user}@${PG.host}:${PG.port}/${db.database}${schema ? `?schema=${schema}` : ''}`;
}

async function openStore(url: string, secretKey = key): Promise<PgCatalogStore> {
  const s = new PgCatalogStore({ url, secretKey });
  opened.push(s);
  await s.init();
  return s;
}

async function query(sql: string, params: unknown[] = []): Promise<pg.QueryResult> {
  const c = new pg.Client({ ...PG, database: db.database });
  await c.connect();
  try {
    return await c.query(sql, params);
  } finally {
    await c.end();
  }
}

describe('PostgreSQL catalog store: contract', () => {
  // Each test gets its own schema in the one test database.
  storeContract(async () => {
    const url = catalogUrl(uniqueName('cat'));
    return () => openStore(url);
  });
});

describe('PostgreSQL catalog store', () => {
  test('uses the tributary schema by default, with a unique index on lower(name)', async () => {
    const s = await openStore(catalogUrl());
    await s.createSource(sourceRecord('defaultschema'), []);
    const t = await query(
      `SELECT table_name FROM information_schema.tables WHERE table_schema = 'tributary' ORDER BY 1`,
    );
    assert.deepEqual(
      t.rows.map((r) => r.table_name),
      [
        'tributary_file_blobs',
        'tributary_file_chunks',
        'tributary_files',
        'tributary_files_version',
        'tributary_knowledge_bases',
        'tributary_sources',
        'tributary_tokens',
      ],
    );
    const idx = await query(
      `SELECT indexdef FROM pg_indexes WHERE schemaname = 'tributary' AND indexname = 'tributary_sources_lower_name'`,
    );
    assert.match(idx.rows[0].indexdef, /UNIQUE INDEX .*lower\(name\)/);
    await s.deleteSource('defaultschema');
  });

  test('secrets never appear in clear in the table', async () => {
    const schema = uniqueName('cat');
    const s = await openStore(catalogUrl(schema));
    const password = `pw-${randomBytes(8).toString('hex')}`;
    await s.createSource(sourceRecord('db1', { user: 'alice', password }), ['password']);
    const raw = await query(`SELECT params::text AS p, secrets FROM "${schema}".tributary_sources`);
    assert.ok(!raw.rows[0].p.includes(password));
    assert.ok(raw.rows[0].p.includes('alice'));
    assert.ok(raw.rows[0].p.includes('"$secret": "v1:'));
    assert.deepEqual(raw.rows[0].secrets, ['password']);
    assert.equal((await s.getSource('db1'))?.params.password, password);
  });

  test('a replica with another key cannot read secrets and says which', async () => {
    const url = catalogUrl(uniqueName('cat'));
    const a = await openStore(url);
    await a.createSource(sourceRecord('locked', { password: 'hunter2' }), ['password']);
    const b = await openStore(url, randomBytes(32));
    await assert.rejects(
      b.getSource('locked'),
      (e: Error) => e.message.includes("'locked'") && !e.message.includes('hunter2'),
    );
  });

  test('replicas starting together on an empty schema both come up', async () => {
    const url = catalogUrl(uniqueName('cat'));
    const stores = await Promise.all([openStore(url), openStore(url), openStore(url)]);
    await stores[0]!.createSource(sourceRecord('x'), []);
    assert.equal((await stores[2]!.listSources()).length, 1);
  });

  test('the change feed reconnects after its connection is killed, and tells listeners', async () => {
    const url = catalogUrl(uniqueName('cat'));
    const a = await openStore(url);
    const b = await openStore(url);
    const resync = nextChange(b);
    const killed = await query(
      `SELECT pg_terminate_backend(pid) FROM pg_stat_activity
       WHERE datname = $1 AND query LIKE 'LISTEN %' AND pid <> pg_backend_pid()`,
      [db.database],
    );
    assert.ok(killed.rowCount! >= 1);
    await resync;
    // After reconnecting, notifications flow again.
    const changed = nextChange(b);
    await a.createSource(sourceRecord('afterkill'), []);
    await changed;
    assert.ok(await b.getSource('afterkill'));
  });

  test('schema names that are not plain identifiers are refused; URLs are redacted for logs', () => {
    assert.throws(() => parseCatalogUrl('postgres://h/db?schema=a;drop'), /schema/);
    assert.deepEqual(parseCatalogUrl('postgres://u@h:5432/db?schema=s1&sslmode=disable'), {
      connectionString: 'postgres://u@h:5432/db?sslmode=disable',
      schema: 's1',
    });
    assert.equal(redactUrl('postgres://u:secret@h/db'), 'postgres://u:***@h/db');
  });

  test('openCatalog picks PostgreSQL when TRIBUTARY_CATALOG_URL is set', async () => {
    const schema = uniqueName('cat');
    const config = await loadConfig({
      env: {
        TRIBUTARY_STORAGE_DIR: '/nonexistent-tributary-test',
        TRIBUTARY_SECRET_KEY: key.toString('base64'),
        TRIBUTARY_CATALOG_URL: catalogUrl(schema),
      },
    });
    const store = await openCatalog(config, createLogger('silent'));
    opened.push(store);
    assert.ok(store instanceof PgCatalogStore);
    await store.createSource(sourceRecord('viaconfig'), []);
    const r = await query(`SELECT name FROM "${schema}".tributary_sources`);
    assert.equal(r.rows[0].name, 'viaconfig');
  });

  test('an unreachable catalog database fails with a clear error, without the password', async () => {
    const s = new PgCatalogStore({ url: 'postgres://u:pw-not-shown@127.0.0.1:1/db', secretKey: key });
    await assert.rejects(
      s.init(),
      (e: Error) =>
        e.message.includes('Cannot connect to the catalog database') && !e.message.includes('pw-not-shown'),
    );
    await s.close();
  });
});
