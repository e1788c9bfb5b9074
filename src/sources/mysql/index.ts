import type { EngineSpec } from '../engine-spec.js';
import { type MysqlParams, mysqlParamDocs, mysqlParams } from './params.js';
import { MysqlSource } from './source.js';

export type { MysqlParams } from './params.js';
export { MysqlSource } from './source.js';

export const mysqlEngine: EngineSpec<MysqlParams> = {
  name: 'mysql',
  description: 'MySQL, read and written through a bounded connection pool',
  params: mysqlParams,
  secrets: ['password'],
  paramDocs: mysqlParamDocs,
  create: (name, params, ctx) => new MysqlSource(name, 'mysql', params, ctx.logger, ctx.poolWaitMs),
};

export const mariadbEngine: EngineSpec<MysqlParams> = {
  name: 'mariadb',
  description: 'MariaDB, read and written through a bounded connection pool',
  params: mysqlParams,
  secrets: ['password'],
  paramDocs: mysqlParamDocs,
  create: (name, params, ctx) => new MysqlSource(name, 'mariadb', params, ctx.logger, ctx.poolWaitMs),
};
