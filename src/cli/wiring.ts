import { registerSecurityHooks } from '../http/hooks/index.js';
import { registerMcp } from '../http/mcp/routes.js';
import { registerAuthRoutes } from '../http/routes/auth.js';
import { registerConsoleRoutes } from '../http/routes/console.js';
import { registerFileRoutes } from '../http/routes/files.js';
import { registerPassthroughRoutes } from '../http/routes/passthrough.js';
import { registerSourceRoutes } from '../http/routes/sources.js';
import type { RouteRegistrar } from '../http/server.js';

/**
 * Which hooks and routes the HTTP server carries, in order. Hooks run before every
 * route: Host/Origin checks, CORS, authentication, rate limit (docs/architecture.md, "Faces").
 */
export const httpHooks: RouteRegistrar[] = [registerSecurityHooks];
export const httpRoutes: RouteRegistrar[] = [
  registerAuthRoutes,
  registerFileRoutes,
  registerPassthroughRoutes,
  registerSourceRoutes,
  registerMcp,
  registerConsoleRoutes,
];
