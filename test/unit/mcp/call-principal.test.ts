/** Who an MCP tool call runs as: the carried principal; `local` over stdio or with auth off; refused over HTTP with auth on. */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { McpDeps } from '../../../src/mcp/deps.js';
import { callPrincipal } from '../../../src/mcp/query-tool.js';

const deps = (token: boolean, oauth: boolean) =>
  ({
    config: {
      auth: { username: token ? 'admin' : null, password: token ? 'pw' : null },
      api: { mcp: { oauth: { enabled: oauth } } },
    },
  }) as unknown as McpDeps;

test('a carried principal wins; none is local unless HTTP with auth on, where it is refused', () => {
  const ana = { user: 'ana', groups: ['g'], admin: false };
  const local = { user: 'local', groups: [], admin: true };
  assert.equal(callPrincipal(ana, true, deps(true, false)), ana);
  assert.deepEqual(callPrincipal(null, false, deps(true, true)), local, 'stdio');
  assert.deepEqual(callPrincipal(null, true, deps(false, false)), local, 'HTTP, auth off');
  assert.equal(callPrincipal(null, true, deps(true, false)), null, 'HTTP, token auth');
  assert.equal(callPrincipal(null, true, deps(false, true)), null, 'HTTP, OAuth');
});
