import type { FastifyInstance, FastifyReply } from 'fastify';
import type { Logger } from 'pino';
import { resourceMetadataUrl } from '../../auth/oauth/resource.js';
import { bearerCredential } from '../../auth/secrets.js';
import type { Principal } from '../../auth/types.js';
import type { Config } from '../../config/types.js';
import { sendError } from '../errors.js';
import { needsCredential, policyPath } from './paths.js';
import type { SecurityRuntime } from './runtime.js';

declare module 'fastify' {
  interface FastifyRequest {
    /** Who is calling; null when auth is off or the route is public. */
    principal: Principal | null;
  }
}

/** RFC 6750 quoted-string: our values never hold quotes, but never let one through. */
const q = (s: string) => `"${s.replace(/["\\]/g, '')}"`;

/**
 * Authentication (SPEC §6): every /api and /mcp route except the public ones needs a
 * bearer credential that one of the configured authenticators accepts. Runs at onRequest,
 * so nothing (not even the body) is read for a caller without a valid credential. After a
 * success the Authorization header is removed from the request: no handler can pass the
 * caller's credential on to a source or upstream.
 */
export function registerAuthentication(
  app: FastifyInstance,
  rt: SecurityRuntime,
  config: Config,
  logger: Logger,
): void {
  app.decorateRequest('principal', null);
  const authenticator = rt.auth.authenticator;
  if (!authenticator) return;
  const oauth = rt.auth.oauth !== null;
  const scope = config.api.mcp.oauth.scope;

  const challenge = (reply: FastifyReply, error?: string) => {
    if (!oauth) {
      reply.header('WWW-Authenticate', `Bearer realm="tributary"${error ? `, error=${q(error)}` : ''}`);
      return;
    }
    const parts = [
      ...(error ? [`error=${q(error)}`] : []),
      `scope=${q(scope)}`,
      `resource_metadata=${q(resourceMetadataUrl(rt.baseUrl()))}`,
    ];
    reply.header('WWW-Authenticate', `Bearer ${parts.join(', ')}`);
  };

  app.addHook('onRequest', async (request, reply) => {
    const path = policyPath(request);
    if (!needsCredential(path)) return;
    const credential = bearerCredential(request.headers.authorization);
    if (!credential) {
      challenge(reply);
      return sendError(
        reply,
        401,
        'unauthorized',
        'Authentication required: send Authorization: Bearer <token>',
      );
    }
    const outcome = await authenticator.authenticate(credential);
    switch (outcome.result) {
      case 'ok':
        request.principal = outcome.principal;
        delete request.headers.authorization;
        return;
      case 'insufficient_scope': {
        const s = outcome.scope;
        reply.header(
          'WWW-Authenticate',
          `Bearer error="insufficient_scope", scope=${q(s)}, resource_metadata=${q(resourceMetadataUrl(rt.baseUrl()))}`,
        );
        logger.info(
          { principal: outcome.principal.id, path },
          'request refused: token lacks the required scope',
        );
        return reply
          .code(403)
          .type('application/json')
          .send({
            error: 'insufficient_scope',
            error_description: `The access token lacks the required scope '${s}'`,
          });
      }
      case 'unavailable':
        return sendError(
          reply,
          503,
          'auth_unavailable',
          'The authorization server could not be reached to check the access token; try again shortly',
        );
      default:
        logger.debug(
          { path, reason: outcome.result === 'invalid' ? outcome.reason : outcome.result },
          'bad credential',
        );
        challenge(reply, 'invalid_token');
        return sendError(reply, 401, 'unauthorized', 'Invalid, expired or revoked access token');
    }
  });
}
