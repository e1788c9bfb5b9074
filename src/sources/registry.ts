import { ErrorCode, SqlError } from '../core/errors.js';
import { duckdbEngine } from './duckdb/index.js';
import type { EngineSpec } from './engine-spec.js';
import { mariadbEngine, mysqlEngine } from './mysql/index.js';
import { postgresEngine } from './postgres/index.js';
import { sqliteEngine } from './sqlite/index.js';

/** Engine name (lower case) → spec. rest_api and files are added by their owners through registerEngine. */
export const engines = new Map<string, EngineSpec<any>>();

/** Adds (or replaces) an engine; names are case-insensitive. */
export function registerEngine(spec: EngineSpec<any>): void {
  engines.set(spec.name.toLowerCase(), spec);
}

for (const spec of [postgresEngine, mysqlEngine, mariadbEngine, sqliteEngine, duckdbEngine])
  registerEngine(spec);

/** The spec for an engine name (any case); SqlError 1105 listing the known engines when there is none. */
export function getEngine(name: string): EngineSpec<any> {
  const spec = engines.get(name.toLowerCase());
  if (spec) return spec;
  const known = [...engines.keys()].sort().join(', ');
  throw new SqlError(ErrorCode.SOURCE_ERROR, `Unknown engine '${name}'. Known engines: ${known}`);
}

export interface EngineDescription {
  engine: string;
  description: string;
  /** 'name: doc; ...' with secret parameters marked '(secret)'. */
  parameters: string;
}

/** Rows for SHOW ENGINES, sorted by engine name. */
export function describeEngines(): EngineDescription[] {
  return [...engines.values()]
    .sort((a, b) => a.name.localeCompare(b.name))
    .map((spec) => ({
      engine: spec.name,
      description: spec.description,
      parameters: Object.entries(spec.paramDocs)
        .map(([k, doc]) => {
          const secret = spec.secrets.includes(k) && !/\bsecret\b/i.test(doc) ? ' (secret)' : '';
          return `${k}: ${doc}${secret}`;
        })
        .join('; '),
    }));
}
