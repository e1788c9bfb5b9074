/**
 * A real OAuth 2.0 authorization server (oidc-provider) on 127.0.0.1 for the resource-server
 * tests: client credentials grant, RFC 7662 introspection, RFC 8707 resource indicators.
 * Access tokens are JWTs for the client `agent-jwt` and opaque for `agent-opaque`; each carries
 * a `groups` claim (GROUPS), an array in the JWT and a space-separated string in the opaque one.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { exportJWK, generateKeyPair, type JWK, SignJWT } from 'jose';
import Provider from 'oidc-provider';

export const INTROSPECTION_CLIENT = { id: 'tributary-rs', secret: 'rs-client-secret-0123456789abcdef' };
export const AGENTS = {
  jwt: { id: 'agent-jwt', secret: 'agent-jwt-secret-0123456789abcdef' },
  opaque: { id: 'agent-opaque', secret: 'agent-opaque-secret-0123456789abc' },
} as const;
export const SCOPES = ['mcp:tools', 'other'];
/** The groups claim of each agent's tokens. */
export const GROUPS = { jwt: ['support', 'eu'], opaque: 'analysts finance' } as const;

export interface TestIssuer {
  issuer: string;
  /** How many introspection requests the issuer answered (to see caching work). */
  introspections(): number;
  /** A token from the client credentials grant. */
  token(kind: keyof typeof AGENTS, resource: string, scope: string): Promise<string>;
  /** A JWT signed with the issuer's own key, with chosen claims (for expired tokens). */
  mint(claims: Record<string, unknown>): Promise<string>;
  close(): Promise<void>;
}

export async function startIssuer(opts: { postOnly?: boolean } = {}): Promise<TestIssuer> {
  const { privateKey } = await generateKeyPair('RS256', { extractable: true });
  const jwk: JWK = {
    ...(await exportJWK(privateKey)),
    kid: `k-${Math.random().toString(36).slice(2)}`,
    alg: 'RS256',
    use: 'sig',
  };

  const server: Server = createServer();
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const issuer = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const authMethod = opts.postOnly ? 'client_secret_post' : 'client_secret_basic';

  const provider = new Provider(issuer, {
    clients: [
      {
        client_id: INTROSPECTION_CLIENT.id,
        client_secret: INTROSPECTION_CLIENT.secret,
        grant_types: ['client_credentials'],
        redirect_uris: [],
        response_types: [],
        token_endpoint_auth_method: authMethod,
      },
      ...Object.values(AGENTS).map((a) => ({
        client_id: a.id,
        client_secret: a.secret,
        grant_types: ['client_credentials'],
        redirect_uris: [],
        response_types: [],
        scope: SCOPES.join(' '),
        token_endpoint_auth_method: authMethod,
      })),
    ],
    clientAuthMethods: [authMethod],
    jwks: { keys: [jwk] },
    scopes: SCOPES,
    ttl: { ClientCredentials: 600 },
    // JWTs carry these as top-level claims; opaque tokens return them from introspection.
    extraTokenClaims: async (_ctx: unknown, token: { clientId?: string }) => ({
      groups: token.clientId === AGENTS.jwt.id ? [...GROUPS.jwt] : GROUPS.opaque,
    }),
    features: {
      devInteractions: { enabled: false },
      clientCredentials: { enabled: true },
      introspection: { enabled: true, allowedPolicy: async () => true },
      resourceIndicators: {
        enabled: true,
        defaultResource: () => undefined,
        useGrantedResource: () => true,
        getResourceServerInfo: (_ctx: unknown, resourceIndicator: string, client: { clientId: string }) => ({
          scope: SCOPES.join(' '),
          audience: resourceIndicator,
          accessTokenTTL: 600,
          accessTokenFormat: client.clientId === AGENTS.jwt.id ? 'jwt' : 'opaque',
          jwt: { sign: { alg: 'RS256' } },
        }),
      },
    },
  } as never);
  let introspections = 0;
  const callback = provider.callback();
  server.on('request', (req, res) => {
    if (req.url?.startsWith('/token/introspection')) introspections++;
    callback(req, res);
  });

  return {
    issuer,
    introspections: () => introspections,
    async token(kind, resource, scope) {
      const agent = AGENTS[kind];
      const form = new URLSearchParams({ grant_type: 'client_credentials', resource, scope });
      const headers: Record<string, string> = { 'content-type': 'application/x-www-form-urlencoded' };
      if (opts.postOnly) {
        form.set('client_id', agent.id);
        form.set('client_secret', agent.secret);
      } else {
        headers.authorization = `Basic ${Buffer.from(`${agent.id}:${agent.secret}`).toString('base64')}`;
      }
      const res = await fetch(`${issuer}/token`, { method: 'POST', headers, body: form });
      const body = (await res.json()) as { access_token?: string };
      if (res.status !== 200 || !body.access_token) {
        throw new Error(`token request failed: ${res.status} ${JSON.stringify(body)}`);
      }
      return body.access_token;
    },
    async mint(claims) {
      return new SignJWT(claims)
        .setProtectedHeader({ alg: 'RS256', kid: jwk.kid, typ: 'at+jwt' })
        .sign(privateKey);
    },
    close: () =>
      new Promise<void>((r) => {
        server.closeAllConnections();
        server.close(() => r());
      }),
  };
}
