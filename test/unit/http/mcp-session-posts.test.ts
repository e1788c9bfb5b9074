import assert from 'node:assert/strict';
import type { IncomingHttpHeaders } from 'node:http';
import { describe, test } from 'node:test';
import { plainSessionPost } from '../../../src/http/mcp/session-posts.js';
import { MCP_BODY_LIMIT } from '../../../src/mcp/transports/http-util.js';

const live = (id: string) => id === 'live-session';

function req(over: { method?: string; url?: string; headers?: IncomingHttpHeaders } = {}) {
  return {
    method: over.method ?? 'POST',
    url: over.url ?? '/mcp/streamable',
    headers: {
      'content-type': 'application/json',
      'content-length': '42',
      'mcp-session-id': 'live-session',
      ...over.headers,
    },
  };
}

describe('session POSTs served before the router: which requests are taken', () => {
  test('a plain JSON POST to a live session is taken, with its declared length', () => {
    assert.equal(plainSessionPost(req(), live), 42);
    assert.equal(
      plainSessionPost(req({ headers: { 'content-type': 'application/json; charset=utf-8' } }), live),
      42,
    );
    assert.equal(
      plainSessionPost(req({ headers: { 'content-length': String(MCP_BODY_LIMIT) } }), live),
      MCP_BODY_LIMIT,
    );
  });

  test('everything else is left to Fastify', () => {
    const cases: [string, ReturnType<typeof req>][] = [
      ['GET', req({ method: 'GET' })],
      ['DELETE', req({ method: 'DELETE' })],
      ['a query string', req({ url: '/mcp/streamable?x=1' })],
      ['another path', req({ url: '/mcp/streamable/' })],
      ['an unknown session', req({ headers: { 'mcp-session-id': 'other' } })],
      ['no session', req({ headers: { 'mcp-session-id': undefined } })],
      [
        'two session headers',
        req({ headers: { 'mcp-session-id': ['live-session', 'x'] as unknown as string } }),
      ],
      ['a chunked body', req({ headers: { 'transfer-encoding': 'chunked', 'content-length': undefined } })],
      ['no declared length', req({ headers: { 'content-length': undefined } })],
      ['a malformed length', req({ headers: { 'content-length': '4x' } })],
      ['a body over the limit', req({ headers: { 'content-length': String(MCP_BODY_LIMIT + 1) } })],
      ['a text body', req({ headers: { 'content-type': 'text/plain' } })],
      ['no content type', req({ headers: { 'content-type': undefined } })],
    ];
    for (const [what, r] of cases) assert.equal(plainSessionPost(r, live), null, what);
  });
});
