import type { ServerResponse } from 'node:http';
import type { Logger } from 'pino';
import { resourceMetadataUrl } from '../../auth/oauth/resource.js';
import { bearerCredential } from '../../auth/secrets.js';
import type { Principal } from '../../auth/types.js';
import type { Config } from '../../config/types.js';
import type { Check } from './check.js';
import { needsCredential } from './paths.js';
import { refusal } from './refusal.js';
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
 * Authentication (docs/reference/http.md#authentication): every /api and /mcp route except the public ones needs a
 * bearer credential that one of the configured authenticators accepts. Runs before the
 * body is read, so nothing is read for a caller without a valid credential. After a
 * success the Authorization header is removed from the request: no handler can pass the
 * caller's credential on to a source or upstream. Null when auth is off.
 */
export function authCheck(rt: SecurityRuntime, config: Config, logger: Logger): Check | null {
  const authenticator = rt.auth.authenticator;
  if (!authenticator) return null;
  const oauth = rt.auth.oauth !== null;
  const scope = config.api.mcp.oauth.scope;

  const challenge = (res: ServerResponse, error?: string) => {
    if (!oauth) {
      res.setHeader('WWW-Authenticate', `Bearer realm="tributary"${error ? `, error=${q(error)}` : ''}`);
      return;
    }
    const parts = [
      ...(error ? [`error=${q(error)}`] : []),
      `scope=${q(scope)}`,
      `resource_metadata=${q(resourceMetadataUrl(rt.baseUrl()))}`,
    ];
    res.setHeader('WWW-Authenticate', `Bearer ${parts.join(', ')}`);
  };

  return async (req, res, caller) => {
    const path = req.path;
    if (!needsCredential(path)) return null;
    const credential = bearerCredential(req.headers.authorization);
    if (!credential) {
      challenge(res);
      return refusal(401, 'unauthorized', 'Authentication required: send Authorization: Bearer <token>');
    }
    const outcome = await authenticator.authenticate(credential);
    switch (outcome.result) {
      case 'ok':
        delete req.headers.authorization;
        caller.principal = outcome.principal;
        return null;
      case 'insufficient_scope': {
        const s = outcome.scope;
        res.setHeader(
          'WWW-Authenticate',
          `Bearer error="insufficient_scope", scope=${q(s)}, resource_metadata=${q(resourceMetadataUrl(rt.baseUrl()))}`,
        );
        logger.info(
          { principal: outcome.principal.id, path },
          'request refused: token lacks the required scope',
        );
        return {
          status: 403,
          body: {
            error: 'insufficient_scope',
            error_description: `The access token lacks the required scope '${s}'`,
          },
        };
      }
      case 'unavailable':
        return refusal(
          503,
          'auth_unavailable',
          'The authorization server could not be reached to check the access token; try again shortly',
        );
      default:
        logger.debug(
          { path, reason: outcome.result === 'invalid' ? outcome.reason : outcome.result },
          'bad credential',
        );
        challenge(res, 'invalid_token');
        return refusal(401, 'unauthorized', 'Invalid, expired or revoked access token');
    }
  };
}
