import type { McpDeps } from '../mcp/deps.js';

/** Everything the HTTP face needs (its routes and the MCP server it hosts); built once in cli/ and passed down. */
export interface AppDeps extends McpDeps {
  startedAt: number;
}
