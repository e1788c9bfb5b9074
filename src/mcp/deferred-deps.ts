import type { Logger } from 'pino';
import type { Config } from '../config/types.js';
import type { SqlEngine } from '../sql/engine-types.js';
import type { McpDeps } from './deps.js';

export interface DeferredDeps extends McpDeps {
  /** Settles when the real dependencies are built (rejects with their error). */
  ready: Promise<void>;
}

/**
 * McpDeps whose engine, catalog and sources are still being built. MCP clients that
 * spawn `tributary --mcp-stdio` wait for `initialize` and `tools/list` before anything
 * else; those need only the config, so the server can answer them while the engine's
 * module graph and pools load (which takes most of start-up), and the first call that
 * needs the engine waits for it. Loading starts at once.
 */
export function deferredDeps(
  base: { config: Config; logger: Logger; version: string },
  load: () => Promise<McpDeps>,
): DeferredDeps {
  const loaded = load();
  loaded.catch(() => {
    // reported through `ready` and by every call that needed the engine
  });
  const later = <T extends object>(pick: (d: McpDeps) => T): T =>
    new Proxy({} as T, {
      get: (_t, prop) => {
        if (prop === 'then') return undefined; // never mistaken for a promise
        return async (...args: unknown[]) => {
          const target = pick(await loaded) as Record<PropertyKey, (...a: unknown[]) => unknown>;
          return target[prop].apply(target, args);
        };
      },
    });
  const engine: SqlEngine = {
    execute: async (...a) => (await loaded).engine.execute(...a),
    stream: async (...a) => (await loaded).engine.stream(...a),
    listDatabases: async (p) => (await loaded).engine.listDatabases(p),
    listTables: async (db, p) => (await loaded).engine.listTables(db, p),
    listColumns: async (db, table, p) => (await loaded).engine.listColumns(db, table, p),
    close: async () => (await loaded).engine.close(),
    // Schema changes are followed from the moment the real engine exists.
    onSchemaChanged: (listener) => {
      let off: () => void = () => {};
      let gone = false;
      loaded.then(
        (d) => {
          if (!gone) off = d.engine.onSchemaChanged?.(listener) ?? off;
        },
        () => {},
      );
      return () => {
        gone = true;
        off();
      };
    },
  };
  return {
    ...base,
    engine,
    catalog: later((d) => d.catalog),
    sources: later((d) => d.sources),
    ready: loaded.then(() => undefined),
  };
}
