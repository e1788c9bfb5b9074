import { z } from 'zod';
import type { EngineSpec } from '../engine-spec.js';
import { COLLATION_DOC, collationParam, textParam } from '../params.js';
import { type SqliteParams, SqliteSource } from './source.js';

export type { SqliteParams } from './source.js';
export { SqliteSource } from './source.js';

const sqliteParams: z.ZodType<SqliteParams, unknown> = z.strictObject({
  path: textParam(),
  collation: collationParam(),
});

export const sqliteEngine: EngineSpec<SqliteParams> = {
  name: 'sqlite',
  description: 'An SQLite database file on the server (opened read-write; never created)',
  params: sqliteParams,
  secrets: [],
  paramDocs: {
    path: 'path of an existing SQLite database file on the server (required)',
    collation: COLLATION_DOC,
  },
  create: (name, params) => new SqliteSource(name, params),
};
