import type { Logger } from 'pino';
import type { SourceManager } from '../catalog/source-manager-types.js';
import type { CatalogStore } from '../catalog/types.js';
import type { Config } from '../config/types.js';
import type { SqlEngine } from '../sql/engine-types.js';

/** Everything a face (HTTP routes, MCP) needs; built once in cli/ and passed down. */
export interface AppDeps {
  config: Config;
  logger: Logger;
  catalog: CatalogStore;
  sources: SourceManager;
  engine: SqlEngine;
  version: string;
  startedAt: number;
}
