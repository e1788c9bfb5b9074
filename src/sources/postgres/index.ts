import type { EngineSpec } from '../engine-spec.js';
import { type PostgresParams, postgresParamDocs, postgresParams } from './params.js';
import { PostgresSource } from './source.js';

export type { PostgresParams } from './params.js';
export { PostgresSource } from './source.js';

export const postgresEngine: EngineSpec<PostgresParams> = {
  name: 'postgres',
  description: 'PostgreSQL (and compatible servers), read and written through a bounded connection pool',
  params: postgresParams,
  secrets: ['password'],
  paramDocs: postgresParamDocs,
  create: (name, params, ctx) => new PostgresSource(name, params, ctx.logger, ctx.poolWaitMs),
};
