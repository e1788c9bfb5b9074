import type { FastifyInstance } from 'fastify';
import type { AppDeps } from '../http/deps.js';
import { createMcpServerFactory } from './server.js';
import { registerMcpRoutes } from './transports/http.js';

export { deferredDeps } from './deferred-deps.js';
export { createMcpServerFactory } from './server.js';
export { registerMcpRoutes } from './transports/http.js';
export { serveMcpStdio } from './transports/stdio.js';

/** The MCP HTTP face as a route registrar for the HTTP server's `routes` list (cli/wiring.ts). */
export function registerMcp(app: FastifyInstance, deps: AppDeps): void {
  registerMcpRoutes(app, deps, createMcpServerFactory(deps));
}
