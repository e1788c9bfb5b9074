export { deferredDeps } from './deferred-deps.js';
export type { McpDeps } from './deps.js';
export { createMcpServerFactory } from './server.js';
export { serveMcpStdio } from './transports/stdio.js';
