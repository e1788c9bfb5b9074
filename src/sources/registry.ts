import { ErrorCode, SqlError } from '../core/errors.js';
import { duckdbEngine } from './duckdb/index.js';
import type { EngineSpec } from './engine-spec.js';
import { mariadbEngine, mysqlEngine } from './mysql/index.js';
import { postgresEngine } from './postgres/index.js';
import { sqliteEngine } from './sqlite/index.js';

/** Engine name (lower case) → spec. rest_api and files are added by their owners through registerEngine. */
export const engines = new Map<string, EngineSpec>();

/**
 * Adds (or replaces) an engine; names are case-insensitive. The map holds specs of different
 * parameter types, so each is stored erased: sound because a spec's `create` is only ever
 * given what its own `params` schema parsed.
 */
export function registerEngine<P>(spec: EngineSpec<P>): void {
  engines.set(spec.name.toLowerCase(), spec as unknown as EngineSpec);
}

registerEngine(postgresEngine);
registerEngine(mysqlEngine);
registerEngine(mariadbEngine);
registerEngine(sqliteEngine);
registerEngine(duckdbEngine);

/** The spec for an engine name (any case); SqlError 1105 listing the known engines when there is none. */
export function getEngine(name: string): EngineSpec {
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
