import type { Logger } from 'pino';
import type { SourceManager } from '../catalog/source-manager-types.js';
import type { CatalogStore } from '../catalog/types.js';
import type { Config } from '../config/types.js';
import type { Observer } from '../observe/index.js';
import type { SqlEngine } from '../sql/engine-types.js';
import type { HandleStore } from './handle-store.js';

/**
 * What the MCP server needs, and no more: the stdio face runs without any HTTP, so this
 * is MCP's own type, not the HTTP server's (which extends it).
 */
export interface McpDeps {
  config: Config;
  logger: Logger;
  /** Closed with the engine when the stdio face stops. */
  catalog: CatalogStore;
  /** The sources, for what resources say of each (its engine). */
  sources: SourceManager;
  engine: SqlEngine;
  version: string;
  /** Audit log and metrics (absent in tests that build their own deps). */
  observer?: Observer;
  /** Rows of cut answers kept for paging (in memory, or Redis for replicas); made on the first call (query-tool.ts). */
  resultHandles?: HandleStore;
}
