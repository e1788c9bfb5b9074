import type { StatementPrincipal } from '../sql/engine-types.js';

/**
 * The statement principal (SPEC section 12) an MCP request runs as: the one the auth layer
 * put in the request's AuthInfo (`extra.principal`), else the session's; undefined means
 * `local` (auth none), who sees everything. Schema resources and completions list only what
 * it may read (docs/reference/policy.md).
 */
export function mcpPrincipal(
  authInfo: { extra?: Record<string, unknown> } | undefined,
  session?: { principal?: StatementPrincipal },
): StatementPrincipal | undefined {
  const p = authInfo?.extra?.principal;
  if (isPrincipal(p)) return p;
  return session?.principal;
}

function isPrincipal(v: unknown): v is StatementPrincipal {
  const p = v as StatementPrincipal | undefined;
  return (
    typeof p === 'object' &&
    p !== null &&
    typeof p.user === 'string' &&
    Array.isArray(p.groups) &&
    typeof p.admin === 'boolean'
  );
}
