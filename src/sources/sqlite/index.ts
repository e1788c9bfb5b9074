import { z } from 'zod';
import type { EngineSpec } from '../engine-spec.js';
import { booleanParam, COLLATION_DOC, collationParam, textParam } from '../params.js';
import { type SqliteParams, SqliteSource } from './source.js';

export type { SqliteParams } from './source.js';
export { SqliteSource } from './source.js';

const sqliteParams: z.ZodType<SqliteParams, unknown> = z.strictObject({
  path: textParam(),
  collation: collationParam(),
  read_only: booleanParam().default(false),
});

export const sqliteEngine: EngineSpec<SqliteParams> = {
  name: 'sqlite',
  description:
    'An SQLite database file on the server (opened read-write unless read_only is true; never created)',
  params: sqliteParams,
  secrets: [],
  paramDocs: {
    path: 'path of an existing SQLite database file on the server (required)',
    collation: COLLATION_DOC,
    read_only: 'true: the file is opened read-only and writes are refused with 1290 (default false)',
  },
  create: (name, params) => new SqliteSource(name, params),
};
