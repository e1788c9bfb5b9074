import { rows } from './api.js';
import { type SchemaTree, schemaTree } from './completion.js';

/**
 * The sources, their tables and columns, for completion and the schema list. A source that
 * cannot be listed still appears (information_schema skips it rather than failing).
 */
export async function loadSchema(): Promise<SchemaTree> {
  const dbs = await rows('SHOW DATABASES');
  const names = dbs.data.map((r) => String(r[0])).filter((n) => n !== 'information_schema');
  const [tables, columns] = await Promise.all([
    rows('SELECT TABLE_SCHEMA, TABLE_NAME FROM information_schema.tables').catch(() => null),
    rows('SELECT TABLE_SCHEMA, TABLE_NAME, COLUMN_NAME FROM information_schema.columns').catch(() => null),
  ]);
  return schemaTree(names, columns?.data ?? [], tables?.data ?? []);
}
