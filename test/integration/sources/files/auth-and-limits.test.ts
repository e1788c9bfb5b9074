import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { startTestServer, type TestServer } from '../../../helpers/server.js';

let server: TestServer;
let token: string;

before(async () => {
  server = await startTestServer({
    TRIBUTARY_USERNAME: 'ana',
    TRIBUTARY_PASSWORD: 'pw-123',
    TRIBUTARY_MAX_UPLOAD_BYTES: '4000000',
  });
  const res = await fetch(`${server.url}/api/login`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ username: 'ana', password: 'pw-123' }),
  });
  token = ((await res.json()) as any).token;
});
after(async () => {
  await server?.stop();
});

// 3 MB: past the JSON body limit of other routes, within files.max_upload_bytes.
const BIG = `a,b\n${'1,xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx\n'.repeat(60000)}`;

test('the files routes need a token when auth is on', async () => {
  const put = await fetch(`${server.url}/api/files/t`, {
    method: 'PUT',
    body: 'a\n1\n',
    headers: { 'content-type': 'text/csv' },
  });
  assert.equal(put.status, 401);
  assert.equal((await fetch(`${server.url}/api/files`)).status, 401);
  assert.equal((await fetch(`${server.url}/api/files/t`, { method: 'DELETE' })).status, 401);
});

test('uploads are bounded by files.max_upload_bytes, not the JSON body limit', async () => {
  const auth = { authorization: `Bearer ${token}`, 'content-type': 'text/csv' };
  const ok = await fetch(`${server.url}/api/files/big`, { method: 'PUT', body: BIG, headers: auth });
  assert.equal(ok.status, 201, await ok.clone().text());
  assert.equal(((await ok.json()) as any).rows, 60000);
  const tooBig = await fetch(`${server.url}/api/files/bigger`, {
    method: 'PUT',
    body: BIG + BIG,
    headers: auth,
  });
  assert.equal(tooBig.status, 413);
  assert.equal(((await tooBig.json()) as any).error_code, 'request_too_large');
  const list = (await (await fetch(`${server.url}/api/files`, { headers: auth })).json()) as any[];
  assert.deepEqual(
    list.map((f) => f.name),
    ['big'],
  );
});
