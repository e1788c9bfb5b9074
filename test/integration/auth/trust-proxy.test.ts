/** api.http.trust_proxy: behind a trusted reverse proxy, login throttling and logs see the real client. */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { startTestServer } from './helpers/server.js';

async function failedLoginIp(env: Record<string, string>): Promise<string | undefined> {
  const server = await startTestServer({
    TRIBUTARY_USERNAME: 'ann',
    TRIBUTARY_PASSWORD: 'right-pw-1',
    ...env,
  });
  try {
    const r = await fetch(`${server.url}/api/login`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-forwarded-for': '203.0.113.7' },
      body: JSON.stringify({ username: 'ann', password: 'wrong' }),
    });
    assert.equal(r.status, 401);
    const line = server.logs.map((l) => JSON.parse(l)).find((l) => l.msg === 'failed login');
    return line?.ip;
  } finally {
    await server.close();
  }
}

test('X-Forwarded-For is ignored by default and believed from a trusted proxy', async () => {
  assert.equal(await failedLoginIp({}), '127.0.0.1');
  assert.equal(await failedLoginIp({ TRIBUTARY_TRUST_PROXY: '127.0.0.1' }), '203.0.113.7');
});
