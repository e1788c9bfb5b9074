import assert from 'node:assert/strict';
import { test } from 'node:test';
import { drainVerdict, isEventStream } from '../../../src/http/drain.js';

test('drainVerdict: before the drain everything is taken; during it, reused connections and the status are refused', () => {
  const cases: [draining: boolean, reused: boolean, path: string, verdict: 'take' | 'refuse'][] = [
    [false, false, '/api/sql/query', 'take'],
    [false, true, '/api/sql/query', 'take'],
    [false, true, '/mcp/status', 'take'],
    // A connection accepted just before the listener closed: its sender cannot go elsewhere now.
    [true, false, '/api/sql/query', 'take'],
    [true, false, '/mcp', 'take'],
    [true, true, '/api/sql/query', 'refuse'],
    [true, true, '/mcp', 'refuse'],
    [true, false, '/mcp/status', 'refuse'],
    [true, true, '/mcp/status', 'refuse'],
  ];
  for (const [draining, reused, path, verdict] of cases)
    assert.equal(drainVerdict(draining, reused, path), verdict, JSON.stringify({ draining, reused, path }));
});

test('isEventStream: only the MCP GET streams are not work in flight', () => {
  const cases: [method: string, url: string, stream: boolean][] = [
    ['GET', '/mcp/sse', true],
    ['GET', '/mcp/streamable', true],
    ['GET', '/mcp', true],
    ['GET', '/mcp?x=1', true],
    ['POST', '/mcp', false],
    ['POST', '/mcp/streamable', false],
    ['DELETE', '/mcp', false],
    ['POST', '/mcp/messages?session_id=abc', false],
    ['GET', '/mcp/status', false],
    ['GET', '/api/files', false],
  ];
  for (const [method, url, stream] of cases)
    assert.equal(isEventStream(method, url), stream, `${method} ${url}`);
});
