import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import { METADATA_PATH, protectedResourceMetadata, RESOURCE_PATH } from '../../auth/oauth/resource.js';
import type { AppDeps } from '../deps.js';
import { sendError } from '../errors.js';
import { securityRuntime } from '../hooks/runtime.js';

const LoginBody = z.strictObject({
  username: z.string().max(1024),
  password: z.string().max(4096),
});

/**
 * POST /api/login, POST /api/logout (docs/reference/http.md) and the RFC 9728 protected resource
 * metadata (docs/reference/http.md#authentication). Public routes: /api/login and the metadata.
 */
export function registerAuthRoutes(app: FastifyInstance, deps: AppDeps): void {
  const rt = securityRuntime(app, deps);
  const tokens = rt.auth.tokens;

  app.post('/api/login', async (request, reply) => {
    if (!tokens) {
      return sendError(
        reply,
        404,
        'not_found',
        'Token login is not enabled: set TRIBUTARY_USERNAME and TRIBUTARY_PASSWORD to use it',
      );
    }
    // Every attempt spends a point before the password is looked at, so parallel guesses
    // cannot slip past the limit; a success gives the points back.
    const key = `ip:${request.ip}`;
    const gate = await rt.loginLimiter.consume(key);
    if (!gate.allowed) {
      reply.header('Retry-After', String(gate.retryAfterS));
      return sendError(
        reply,
        429,
        'too_many_login_attempts',
        `Too many failed logins from this address; retry after ${gate.retryAfterS} s`,
      );
    }
    const parsed = LoginBody.safeParse(request.body);
    if (!parsed.success) {
      // Never echo the body: it may hold a password.
      const issue = parsed.error.issues[0];
      const where = issue?.path.length ? issue.path.join('.') : 'body';
      return sendError(
        reply,
        400,
        'invalid_request',
        `Invalid request: ${where}: expected a JSON object {"username": string, "password": string}`,
      );
    }
    const issued = await tokens.login(parsed.data.username, parsed.data.password);
    if (!issued) {
      deps.logger.warn({ ip: request.ip }, 'failed login');
      return sendError(reply, 401, 'invalid_credentials', 'Invalid username or password');
    }
    await rt.loginLimiter.reset(key);
    reply.header('Cache-Control', 'no-store');
    return { token: issued.token, expires_at: issued.expiresAt.toISOString() };
  });

  app.post('/api/logout', async (request, reply) => {
    const p = request.principal;
    if (tokens && p?.kind === 'token' && p.tokenHash) await tokens.revoke(p.tokenHash, p.id);
    return reply.code(204).send();
  });

  if (rt.auth.oauth) {
    const metadata = async () => protectedResourceMetadata(deps.config, rt.baseUrl());
    app.get(METADATA_PATH, metadata);
    app.get(METADATA_PATH + RESOURCE_PATH, metadata);
  }
}
