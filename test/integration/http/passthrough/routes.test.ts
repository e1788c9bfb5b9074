import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { REDACTED, secretForms } from '../../../../src/egress/redact.js';
import { startApp, type TestApp } from './harness.js';
import { BOMB_DECODED, startUpstream, type Upstream } from './upstream.js';

// Upstreams run on 127.0.0.1 only, with allow_private_networks on so the product may reach them.

const TOKEN = 'tbx_Secr3t+Token/42=Zz!';
const API_KEY = 'default-header-key-0123456789';
const LIMIT = 256 * 1024;

let up: Upstream;
let t: TestApp;
/** Every response body the app gave, to prove the token never appears in any of them. */
const answers: string[] = [];

async function call(name: string, body: unknown, suffix: '' | '/test' = '') {
  const r = await t.call(name, body, suffix);
  answers.push(r.text);
  return r;
}

function assertError(r: { status: number; json: any }, status: number, code: string, pattern?: RegExp) {
  assert.equal(r.status, status, JSON.stringify(r.json));
  assert.equal(r.json.error_code, code, JSON.stringify(r.json));
  assert.equal(typeof r.json.message, 'string');
  assert.deepEqual(Object.keys(r.json).sort(), ['error_code', 'message']);
  if (pattern) assert.match(r.json.message, pattern);
}

before(async () => {
  up = await startUpstream('127.0.0.1');
  t = await startApp({ allowPrivate: true, timeoutMs: 1500, maxRequestBytes: 4096, maxResponseBytes: LIMIT });
  t.sources.add('api', 'rest_api', {
    base_url: `${up.url}/`,
    bearer_token: TOKEN,
    default_headers: { 'X-Api-Key': API_KEY, 'X-Short': 'short' },
  });
  t.sources.add('based', 'rest_api', { base_url: `${up.url}/echo/v1`, bearer_token: TOKEN });
  t.sources.add('pg', 'postgres', { host: '127.0.0.1', password: 'pw' });
  t.sources.add('fenced', 'rest_api', {
    base_url: up.url,
    bearer_token: TOKEN,
    allowed_hosts: ['api.example.com'],
  });
});

after(async () => {
  await t?.close();
  await up?.close();
});

describe('passthrough calls', () => {
  test('echo: the token goes upstream as a bearer header and comes back redacted', async () => {
    up.reset();
    const r = await call('api', {
      method: 'get',
      path: '/echo/items',
      query: { q: 'a b', page: '2' },
      headers: { 'X-Request-Id': 'r-1', Accept: 'application/json' },
    });
    assert.equal(r.status, 200);
    assert.equal(r.json.status_code, 200);
    assert.equal(r.json.content_type, 'application/json');
    assert.equal(r.json.body_encoding, undefined);
    const seen = up.seen[0]!;
    assert.equal(seen.method, 'GET');
    assert.equal(seen.url, '/echo/items?q=a+b&page=2');
    assert.equal(seen.headers.authorization, `Bearer ${TOKEN}`);
    assert.equal(seen.headers['accept-encoding'], 'identity');
    assert.equal(seen.headers['x-request-id'], 'r-1');
    assert.equal(seen.headers['x-api-key'], API_KEY);
    assert.equal(seen.headers.host, `127.0.0.1:${up.port}`);
    // The echo carries the token back; the caller sees only the redaction marker.
    assert.equal(r.json.body.headers.authorization, `Bearer ${REDACTED}`);
    assert.equal(r.json.body.headers['x-api-key'], REDACTED);
    assert.equal(r.json.body.headers['x-short'], 'short');
    for (const k of Object.keys(r.json.headers)) assert.equal(k, k.toLowerCase());
    assert.equal(r.json.headers['content-type'], 'application/json');
    assert.equal(r.json.headers.connection, undefined, 'hop-by-hop headers are not passed back');
  });

  test('base_url path is kept and the caller path appended', async () => {
    up.reset();
    const r = await call('based', { method: 'GET', path: '/users/7' });
    assert.equal(r.json.status_code, 200);
    assert.equal(up.seen[0]!.url, '/echo/v1/users/7');
  });

  test('JSON bodies are sent compactly as application/json, strings as they are', async () => {
    up.reset();
    let r = await call('api', { method: 'POST', path: '/echo', body: { a: [1, 2], b: 'x' } });
    assert.equal(r.json.status_code, 200);
    assert.equal(up.seen[0]!.body, '{"a":[1,2],"b":"x"}');
    assert.equal(up.seen[0]!.headers['content-type'], 'application/json');
    assert.equal(up.seen[0]!.headers['content-length'], '19');
    r = await call('api', {
      method: 'PUT',
      path: '/echo',
      body: '<x>é</x>',
      headers: { 'Content-Type': 'application/xml' },
    });
    assert.equal(up.seen[1]!.body, '<x>é</x>');
    assert.equal(up.seen[1]!.headers['content-type'], 'application/xml');
    r = await call('api', { method: 'PATCH', path: '/echo', body: 'plain' });
    assert.equal(up.seen[2]!.headers['content-type'], 'text/plain; charset=utf-8');
    r = await call('api', { method: 'DELETE', path: '/echo' });
    assert.equal(up.seen[3]!.method, 'DELETE');
    assert.equal(r.json.status_code, 200);
  });

  test('upstream error statuses are returned with HTTP 200', async () => {
    for (const code of [401, 403, 404, 500, 503]) {
      const r = await call('api', { method: 'GET', path: `/status/${code}` });
      assert.equal(r.status, 200);
      assert.equal(r.json.status_code, code);
      assert.deepEqual(r.json.body, { status: code });
    }
  });

  test('response size: exactly the limit passes; one byte more is refused, declared or chunked', async () => {
    let r = await call('api', { method: 'GET', path: `/size/${LIMIT}` });
    assert.equal(r.json.status_code, 200);
    assert.equal(r.json.body.length, LIMIT);
    r = await call('api', { method: 'GET', path: `/size/${LIMIT + 1}` });
    assertError(r, 502, 'response_too_large');
    r = await call('api', { method: 'GET', path: `/size-chunked/${LIMIT}` });
    assert.equal(r.json.body.length, LIMIT);
    r = await call('api', { method: 'GET', path: `/size-chunked/${LIMIT * 8}` });
    assertError(r, 502, 'response_too_large');
  });

  test('compressed answers are decoded and returned without content-encoding', async () => {
    for (const enc of ['gzip', 'deflate', 'br']) {
      const r = await call('api', { method: 'GET', path: `/${enc}` });
      assert.equal(r.json.status_code, 200, enc);
      assert.deepEqual(r.json.body, { compressed: enc, token: REDACTED });
      assert.equal(r.json.headers['content-encoding'], undefined);
      assert.equal(r.json.headers['content-length'], undefined);
    }
  });

  test(`a gzip bomb (${BOMB_DECODED / 1048576} MiB decoded) stops at the limit`, async () => {
    const r = await call('api', { method: 'GET', path: '/gzip-bomb' });
    assertError(r, 502, 'response_too_large', /after decompression/);
  });

  test('undecodable encodings and broken framing are invalid upstream responses', async () => {
    assertError(
      await call('api', { method: 'GET', path: '/zstd' }),
      502,
      'invalid_upstream_response',
      /zstd/,
    );
    assertError(await call('api', { method: 'GET', path: '/garbage' }), 502, 'invalid_upstream_response');
    assertError(await call('api', { method: 'GET', path: '/truncated' }), 502, 'invalid_upstream_response');
  });

  test('hangs and trickles hit the total deadline', async () => {
    assertError(await call('api', { method: 'GET', path: '/hang' }), 504, 'upstream_timeout');
    assertError(await call('api', { method: 'GET', path: '/hang-body' }), 504, 'upstream_timeout');
    assertError(await call('api', { method: 'GET', path: '/trickle' }), 504, 'upstream_timeout');
  });

  test('a closed port is unreachable', async () => {
    const gone = await startUpstream('127.0.0.1');
    const port = gone.port;
    await gone.close();
    t.sources.add('gone', 'rest_api', { base_url: `http://127.0.0.1:${port}`, bearer_token: TOKEN });
    assertError(
      await call('gone', { method: 'GET', path: '/' }),
      502,
      'upstream_unreachable',
      /'127\.0\.0\.1'/,
    );
  });

  test('same-origin redirects are followed, at most 5', async () => {
    up.reset();
    const r = await call('api', { method: 'GET', path: '/redirect/5' });
    assert.equal(r.json.status_code, 200);
    assert.equal(r.json.body.url, '/echo');
    assert.equal(up.hits, 6);
    assert.ok(up.seen.every((s) => s.headers.authorization === `Bearer ${TOKEN}`));
    assertError(await call('api', { method: 'GET', path: '/redirect/6' }), 502, 'too_many_redirects');
  });

  test('303 turns into GET without body; 307 and 308 keep method and body', async () => {
    up.reset();
    let r = await call('api', { method: 'POST', path: '/redirect-status/303', body: { a: 1 } });
    assert.equal(r.json.body.method, 'GET');
    assert.equal(r.json.body.body, '');
    for (const code of [307, 308]) {
      r = await call('api', { method: 'POST', path: `/redirect-status/${code}`, body: { a: 1 } });
      assert.equal(r.json.body.method, 'POST');
      assert.equal(r.json.body.body, '{"a":1}');
    }
  });

  test('a cross-origin redirect (127.0.0.1 → localhost) is returned as is and never followed', async () => {
    up.reset();
    const target = `http://localhost:${up.port}/echo`;
    const r = await call('api', { method: 'GET', path: '/redirect-to', query: { url: target } });
    assert.equal(r.json.status_code, 302);
    assert.equal(r.json.headers.location, target);
    assert.equal(r.json.body, `moving to another origin with ${REDACTED}`);
    assert.equal(up.hits, 1, 'the other origin was never called, so the token never left');
    // Another port is another origin too; a redacted location comes back.
    const other = `http://127.0.0.1:${up.port + 1}/cb?t=${encodeURIComponent(TOKEN)}`;
    const r2 = await call('api', { method: 'GET', path: '/redirect-to', query: { url: other } });
    assert.equal(r2.json.status_code, 302);
    assert.equal(r2.json.headers.location, `http://127.0.0.1:${up.port + 1}/cb?t=${REDACTED}`);
  });

  test('html is a string, binary is base64 redacted on raw bytes, latin-1 text is base64', async () => {
    let r = await call('api', { method: 'GET', path: '/html' });
    assert.equal(r.json.body, '<!doctype html><p>héllo</p>');
    assert.equal(r.json.content_type, 'text/html; charset=utf-8');
    assert.equal(r.json.body_encoding, undefined);
    r = await call('api', { method: 'GET', path: '/binary' });
    assert.equal(r.json.body_encoding, 'base64');
    const bytes = Buffer.from(r.json.body, 'base64');
    assert.equal(bytes.indexOf(TOKEN), -1);
    assert.notEqual(bytes.indexOf(REDACTED), -1);
    assert.deepEqual([...bytes.subarray(0, 4)], [0x89, 0x50, 0x4e, 0x47]);
    r = await call('api', { method: 'GET', path: '/latin1' });
    assert.equal(r.json.body_encoding, 'base64');
    assert.deepEqual(Buffer.from(r.json.body, 'base64'), Buffer.from([0x63, 0x61, 0x66, 0xe9]));
    r = await call('api', { method: 'GET', path: '/bad-json' });
    assert.equal(r.json.body, '{"not": json');
  });

  test('set-cookie is an array, other headers strings', async () => {
    const r = await call('api', { method: 'GET', path: '/cookies' });
    assert.deepEqual(r.json.headers['set-cookie'], ['a=1; Path=/', 'b=2; HttpOnly']);
    assert.equal(r.json.headers['x-single'], 'one');
  });

  test('every reflected form of the token and long default header values is redacted, body and headers', async () => {
    const r = await call('api', { method: 'GET', path: '/leak' });
    const b = r.json.body;
    assert.equal(b.raw, `Bearer ${REDACTED}`);
    assert.equal(b.url, `https://cb.example/?token=${REDACTED}`);
    assert.equal(b.urlLower, REDACTED);
    assert.ok(b.b64.includes(REDACTED));
    assert.equal(b.b64url, REDACTED);
    assert.equal(b.apiKey, REDACTED);
    assert.equal(r.json.headers['x-echo-auth'], `Bearer ${REDACTED}`);
    assert.ok(r.json.headers['x-echo-b64'].includes(REDACTED));
    assert.deepEqual(r.json.headers['set-cookie'], [`session=${REDACTED}; Path=/`]);
    assert.equal(r.json.headers.location, `https://elsewhere.example/?t=${REDACTED}`);
    for (const form of [...secretForms(TOKEN), ...secretForms(API_KEY)])
      assert.ok(!r.text.includes(form), form);
  });
});

describe('passthrough refusals', () => {
  test('request body over the limit: 413, measured on what would be sent', async () => {
    up.reset();
    assertError(
      await call('api', { method: 'POST', path: '/echo', body: 'x'.repeat(4097) }),
      413,
      'request_too_large',
    );
    // Multi-byte characters count as their UTF-8 bytes.
    assertError(
      await call('api', { method: 'POST', path: '/echo', body: 'é'.repeat(2049) }),
      413,
      'request_too_large',
    );
    const r = await call('api', { method: 'POST', path: '/echo', body: 'é'.repeat(2048) });
    assert.equal(r.json.status_code, 200);
    // The envelope may exceed the limit by at most 64 KiB.
    const huge = await call('api', { method: 'POST', path: '/echo', body: 'x'.repeat(4096 + 70 * 1024) });
    assert.equal(huge.status, 413);
    assert.equal(huge.json.error_code, 'request_too_large');
    assert.equal(up.hits, 1);
  });

  test('bad method, path, query or headers: 400 invalid_request', async () => {
    up.reset();
    assertError(await call('api', { method: 'HEAD', path: '/echo' }), 400, 'invalid_request', /method/);
    assertError(await call('api', { path: '/echo' }), 400, 'invalid_request', /method/);
    for (const path of [
      'echo',
      '//evil.example/x',
      '/a?b=1',
      '/a#b',
      '/a%2Fb',
      '/a%5cb',
      '/a\\b',
      '/a//b',
      '/a b',
      '/a\nb',
      '/../x',
      '/%2e%2e/x',
      '/.%2E/x',
      '/a/.',
    ]) {
      assertError(await call('api', { method: 'GET', path }), 400, 'invalid_request', /path/);
    }
    assertError(
      await call('api', { method: 'GET', path: '/x', query: { a: 1 } }),
      400,
      'invalid_request',
      /query/,
    );
    assertError(
      await call('api', { method: 'GET', path: '/x', headers: { 'X-A': 2 } }),
      400,
      'invalid_request',
    );
    assertError(
      await call('api', { method: 'GET', path: '/x', headers: { 'X-A': 'a\r\nb: c' } }),
      400,
      'invalid_request',
    );
    assertError(await call('api', [1, 2]), 400, 'invalid_request');
    assertError(await call('api', 'not json'), 400, 'invalid_request');
    assert.equal(up.hits, 0);
  });

  test('protected headers are refused naming the header', async () => {
    up.reset();
    for (const h of [
      'Authorization',
      'Host',
      'Cookie',
      'Proxy-Authorization',
      'Connection',
      'Keep-Alive',
      'Proxy-Connection',
      'TE',
      'Trailer',
      'Transfer-Encoding',
      'Upgrade',
      'Content-Length',
      'Expect',
      'Forwarded',
      'X-Forwarded-For',
      'X-Real-IP',
      'Range',
    ]) {
      const r = await call('api', { method: 'GET', path: '/echo', headers: { [h]: '1' } });
      assertError(r, 400, 'invalid_request', new RegExp(`'${h}'`));
    }
    assert.equal(up.hits, 0);
  });

  test('unknown source 404, non-rest source 400 not_passthrough', async () => {
    assertError(await call('nosuch', { method: 'GET', path: '/' }), 404, 'datasource_not_found', /'nosuch'/);
    assertError(await call('pg', { method: 'GET', path: '/' }), 400, 'not_passthrough', /'pg'/);
    // Names are case-insensitive.
    const r = await call('API', { method: 'GET', path: '/echo' });
    assert.equal(r.json.status_code, 200);
  });

  test('a host outside allowed_hosts: 403 host_not_allowed, nothing sent', async () => {
    up.reset();
    const r = await call('fenced', { method: 'GET', path: '/echo' });
    assertError(r, 403, 'host_not_allowed');
    assert.equal(r.json.message, "host '127.0.0.1' is not in the datasource allowlist");
    assert.equal(up.hits, 0);
  });
});

describe('passthrough test endpoint', () => {
  test('ok with status, host (no port) and latency', async () => {
    const r = await call('api', {}, '/test');
    assert.equal(r.status, 200);
    assert.equal(r.json.ok, true);
    assert.equal(r.json.status_code, 200);
    assert.equal(r.json.host, '127.0.0.1');
    assert.equal(typeof r.json.latency_ms, 'number');
  });
  test('401/403 → auth_failed, other non-2xx → upstream_error, always HTTP 200', async () => {
    for (const [code, expected] of [
      [401, 'auth_failed'],
      [403, 'auth_failed'],
      [404, 'upstream_error'],
      [500, 'upstream_error'],
    ] as const) {
      const name = `t${code}`;
      t.sources.add(name, 'rest_api', {
        base_url: up.url,
        bearer_token: TOKEN,
        test_path: `/status/${code}`,
      });
      const r = await call(name, {}, '/test');
      assert.equal(r.status, 200);
      assert.equal(r.json.ok, false);
      assert.equal(r.json.error_code, expected);
      if (expected === 'auth_failed') assert.match(r.json.message, /rejected the credentials/);
    }
  });
  test('refusals are results too', async () => {
    let r = await call('nosuch', {}, '/test');
    assert.deepEqual([r.status, r.json.ok, r.json.error_code], [200, false, 'datasource_not_found']);
    r = await call('fenced', {}, '/test');
    assert.deepEqual([r.status, r.json.ok, r.json.error_code], [200, false, 'host_not_allowed']);
    r = await call('pg', {}, '/test');
    assert.deepEqual([r.status, r.json.ok, r.json.error_code], [200, false, 'not_passthrough']);
  });
});

describe('secrecy', () => {
  test('logs name method, source, path, status, bytes and duration, and never a header, body or the token', async () => {
    const entries = t.logs.map((l) => JSON.parse(l));
    const call = entries.find((e) => e.msg === 'passthrough call' && e.path === '/echo/items');
    assert.ok(call, 'a call was logged');
    assert.equal(call.method, 'GET');
    assert.equal(call.source, 'api');
    assert.equal(call.status, 200);
    assert.equal(typeof call.bytes, 'number');
    assert.equal(typeof call.duration_ms, 'number');
    assert.equal(call.headers, undefined);
    assert.equal(call.body, undefined);
    const all = t.logs.join('\n');
    for (const form of [...secretForms(TOKEN), ...secretForms(API_KEY)]) {
      assert.ok(!all.includes(form), `log contains ${form}`);
    }
  });
  test('no response or error ever carried the token in any form', () => {
    assert.ok(answers.length > 50);
    for (const text of answers) {
      for (const form of [...secretForms(TOKEN), ...secretForms(API_KEY)]) {
        assert.ok(!text.includes(form), `response contains ${form}: ${text.slice(0, 200)}`);
      }
    }
  });
});
