import assert from 'node:assert/strict';
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, test } from 'node:test';
import { startTestServer, type TestServer } from './helpers/server.js';

/** A loopback upstream that records what reaches it. */
async function recordingUpstream(): Promise<{
  url: string;
  seen: { headers: IncomingHttpHeaders; body: string; url: string }[];
  server: Server;
}> {
  const seen: { headers: IncomingHttpHeaders; body: string; url: string }[] = [];
  const server = createServer((req, res) => {
    let body = '';
    req.on('data', (d) => {
      body += String(d);
    });
    req.on('end', () => {
      seen.push({ headers: req.headers, body, url: req.url ?? '' });
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end('{"ok":true}');
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, seen, server };
}

describe("the caller's credential never goes upstream", () => {
  let server: TestServer;
  let upstream: Awaited<ReturnType<typeof recordingUpstream>>;
  let token: string;

  before(async () => {
    upstream = await recordingUpstream();
    server = await startTestServer({
      TRIBUTARY_USERNAME: 'admin',
      TRIBUTARY_PASSWORD: 'no-forward-pw',
      TRIBUTARY_PASSTHROUGH_ALLOW_PRIVATE_NETWORKS: 'true',
    });
    const r = await fetch(`${server.url}/api/login`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ username: 'admin', password: 'no-forward-pw' }),
    });
    token = ((await r.json()) as { token: string }).token;
  });
  after(async () => {
    await server?.close();
    await new Promise((r) => upstream?.server.close(r));
  });

  test('passthrough sends the stored source token, not the caller’s', async () => {
    const auth = { authorization: `Bearer ${token}`, 'content-type': 'application/json' };
    const create = await fetch(`${server.url}/api/sql/query`, {
      method: 'POST',
      headers: auth,
      body: JSON.stringify({
        query: `CREATE DATABASE crm WITH ENGINE = 'rest_api', PARAMETERS = {"base_url": "${upstream.url}", "bearer_token": "upstream-token-abcdef0123456789"}`,
      }),
    });
    assert.equal(create.status, 200);
    assert.equal(((await create.json()) as { type: string }).type, 'ok');
    const res = await fetch(`${server.url}/api/integrations/crm/passthrough`, {
      method: 'POST',
      headers: auth,
      body: JSON.stringify({ method: 'POST', path: '/things', body: { a: 1 } }),
    });
    assert.equal(res.status, 200, await res.clone().text());
    assert.equal(upstream.seen.length, 1);
    const got = upstream.seen[0]!;
    assert.equal(got.headers.authorization, 'Bearer upstream-token-abcdef0123456789');
    assert.ok(!JSON.stringify(got).includes(token), 'the caller token reached the upstream');
    assert.ok(!JSON.stringify(got).includes(token.slice(4)));
  });
});
