import { z } from 'zod';
import type { EngineSpec } from '../engine-spec.js';
import { booleanParam, COLLATION_DOC, collationParam, textParam } from '../params.js';
import { type DuckdbParams, DuckdbSource } from './source.js';

export type { DuckdbParams } from './source.js';
export { DuckdbSource } from './source.js';
export * from './values.js';

const duckdbParams: z.ZodType<DuckdbParams, unknown> = z.strictObject({
  path: textParam(),
  read_only: booleanParam().default(true),
  collation: collationParam(),
});

export const duckdbEngine: EngineSpec<DuckdbParams> = {
  name: 'duckdb',
  description: 'A DuckDB database file on the server (read-only unless read_only is false; never created)',
  params: duckdbParams,
  secrets: [],
  paramDocs: {
    path: 'path of an existing DuckDB database file on the server (required)',
    read_only: 'open the file read-only; writes are then refused with 1290 (default true)',
    collation: COLLATION_DOC,
  },
  create: (name, params) => new DuckdbSource(name, params),
};
