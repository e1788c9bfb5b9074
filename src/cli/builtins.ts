import { existsSync, renameSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { DuckDBInstance } from '@duckdb/node-api';
import { PgCatalogStore } from '../catalog/pg-store.js';
import type { Config } from '../config/types.js';
import { stringLiteral } from '../core/sql-text.js';
import type { SourceContext } from '../sources/engine-spec.js';
import { type FileRecordStore, FilesSource } from '../sources/files/index.js';
import '../sources/files/register.js';
import { getEngine } from '../sources/registry.js';
import type { Source } from '../sources/types.js';

const DEMO_DIR = fileURLToPath(new URL('../../data/demo/', import.meta.url));
const DEMO_TABLES = ['customers', 'products', 'orders'];

/** Sources that exist without CREATE DATABASE: `files` (first: names() lists it first), and `demo` with --demo. */
export async function builtinSources(
  config: Config,
  ctx: SourceContext,
  catalog: FileRecordStore,
): Promise<Map<string, Source>> {
  const out = new Map<string, Source>();
  out.set(
    'files',
    await FilesSource.open({
      storageDir: config.storageDir,
      store: catalog,
      // With a shared catalog the bytes live in it, so every replica reads every file.
      bytes: catalog instanceof PgCatalogStore ? catalog.fileBytes(config.storageDir) : undefined,
      logger: ctx.logger,
    }),
  );
  if (config.demo) {
    const path = await ensureDemoDatabase(config.storageDir);
    const spec = getEngine('duckdb');
    out.set('demo', spec.create('demo', spec.params.parse({ path, read_only: true }), ctx));
  }
  return out;
}

/** The demo dataset (bundled CSVs) as a DuckDB file, built once per storage dir. */
async function ensureDemoDatabase(storageDir: string): Promise<string> {
  const path = join(storageDir, 'demo-v2.duckdb');
  if (existsSync(path)) return path;
  const tmp = `${path}.${process.pid}.tmp`;
  rmSync(tmp, { force: true });
  const db = await DuckDBInstance.create(tmp);
  const conn = await db.connect();
  for (const t of DEMO_TABLES) {
    const file = stringLiteral('duckdb', join(DEMO_DIR, `${t}.csv`));
    await conn.run(`CREATE TABLE ${t} AS SELECT * FROM read_csv(${file}, header = true, auto_detect = true)`);
  }
  // Money is exact, as it would be in a real shop database.
  await conn.run('ALTER TABLE products ALTER price TYPE DECIMAL(10,2)');
  conn.closeSync();
  db.closeSync();
  renameSync(tmp, path);
  return path;
}
