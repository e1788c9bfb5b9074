import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { SqlError } from '../../../src/core/errors.js';
import { restApiEngine } from '../../../src/sources/rest-api/index.js';
import { parseMethod, sourceSecrets } from '../../../src/sources/rest-api/passthrough.js';
import { formatBody } from '../../../src/sources/rest-api/response-body.js';

const parse = (p: unknown) => restApiEngine.params.safeParse(p);
const issues = (p: unknown) => {
  const r = parse(p);
  assert.equal(r.success, false, 'expected a refusal');
  return r.error!.issues.map((i) => `${i.path.join('.')}: ${i.message}`).join('\n');
};

describe('rest_api parameters', () => {
  test('defaults: allowed_hosts = host of base_url, test_path = /, no default headers', () => {
    const r = parse({ base_url: 'https://API.example.com/v2/', bearer_token: 'tok' });
    assert.ok(r.success);
    assert.deepEqual(r.data, {
      base_url: 'https://api.example.com/v2',
      bearer_token: 'tok',
      default_headers: {},
      allowed_hosts: ['api.example.com'],
      test_path: '/',
    });
    assert.deepEqual(restApiEngine.params.parse(r.data), r.data, 'parsing is idempotent');
  });
  test('values given as strings: allowed_hosts list or JSON, default_headers JSON', () => {
    const r = restApiEngine.params.parse({
      base_url: 'https://a.example',
      bearer_token: 'tok',
      allowed_hosts: 'a.example, B.example.',
      default_headers: '{"X-Api-Key":"k"}',
      test_path: '/health',
    });
    assert.deepEqual(r.allowed_hosts, ['a.example', 'b.example']);
    assert.deepEqual(r.default_headers, { 'x-api-key': 'k' });
    assert.deepEqual(restApiEngine.params.parse({ ...r, allowed_hosts: '["*"]' }).allowed_hosts, ['*']);
  });
  test('refusals name the parameter', () => {
    assert.match(issues({ bearer_token: 't' }), /base_url/);
    assert.match(issues({ base_url: 'https://x.example' }), /bearer_token/);
    assert.match(issues({ base_url: 'gopher://x', bearer_token: 't' }), /base_url.*http or https/);
    assert.match(issues({ base_url: 'https://u:p@x.example', bearer_token: 't' }), /user information/);
    assert.match(issues({ base_url: 'https://x.example/#f', bearer_token: 't' }), /fragment/);
    assert.match(issues({ base_url: 'https://x.example/?q', bearer_token: 't' }), /query/);
    assert.match(
      issues({ base_url: 'https://x.example', bearer_token: 't', allowed_hosts: [1] }),
      /allowed_hosts/,
    );
    assert.match(
      issues({ base_url: 'https://x.example', bearer_token: 't', allowed_hosts: ['x.example:443'] }),
      /allowed_hosts/,
    );
    assert.match(
      issues({ base_url: 'https://x.example', bearer_token: 't', default_headers: { A: 1 } }),
      /default_headers/,
    );
    assert.match(
      issues({ base_url: 'https://x.example', bearer_token: 't', default_headers: { Host: 'h' } }),
      /Host/,
    );
    assert.match(
      issues({ base_url: 'https://x.example', bearer_token: 't', test_path: '/a/../b' }),
      /test_path/,
    );
    assert.match(issues({ base_url: 'https://x.example', bearer_token: 't', nope: 1 }), /nope/);
  });
  test('messages never contain the token', () => {
    const token = 'super-secret-token-value\n';
    assert.ok(!issues({ base_url: 'https://x.example', bearer_token: token }).includes('super-secret'));
  });
  test('engine spec: secret parameters, no SQL, no tables', async () => {
    assert.deepEqual(restApiEngine.secrets, ['bearer_token', 'default_headers']);
    const p = restApiEngine.params.parse({ base_url: 'https://x.example', bearer_token: 't' });
    const src = restApiEngine.create('crm', p, { storageDir: '/nonexistent', logger: undefined as never });
    assert.equal(src.dialect, null);
    assert.deepEqual(await src.listTables(), []);
    await src.test();
    for (const call of [
      () => src.query('SELECT 1'),
      () => src.execute('DELETE FROM t'),
      () => src.listColumns('t'),
    ]) {
      await assert.rejects(call(), (e: unknown) => {
        assert.ok(e instanceof SqlError);
        assert.equal(e.code, 1235);
        assert.equal(
          e.message,
          "Source 'crm' is a rest_api source: SQL is not supported; call POST /api/integrations/crm/passthrough",
        );
        return true;
      });
    }
  });
  test('secrets to redact: the token and default header values of 16+ characters', () => {
    const p = restApiEngine.params.parse({
      base_url: 'https://x.example',
      bearer_token: 'tok',
      default_headers: { 'X-Short': '123456789012345', 'X-Key': '1234567890123456' },
    });
    assert.deepEqual(sourceSecrets(p), ['tok', '1234567890123456']);
  });
  test('methods are case-insensitive and limited to five', () => {
    assert.equal(parseMethod('patch'), 'PATCH');
    for (const m of ['HEAD', 'OPTIONS', 'TRACE', 'CONNECT', '', 1])
      assert.throws(() => parseMethod(m), /method/);
  });
});

describe('response body formatting', () => {
  test('JSON and +json parse; JSON that does not parse is text', () => {
    assert.deepEqual(formatBody(Buffer.from('{"a":1}'), 'application/json; charset=utf-8'), {
      body: { a: 1 },
    });
    assert.deepEqual(formatBody(Buffer.from('[1]'), 'application/problem+json'), { body: [1] });
    assert.deepEqual(formatBody(Buffer.from('{oops'), 'application/json'), { body: '{oops' });
    assert.deepEqual(formatBody(Buffer.from(''), 'application/json'), { body: '' });
  });
  test('text kinds and no content type give strings', () => {
    for (const ct of [
      'text/html',
      'text/plain; charset=utf-8',
      'application/xml',
      'image/svg+xml',
      'application/javascript',
      'application/x-www-form-urlencoded',
      null,
    ]) {
      assert.deepEqual(formatBody(Buffer.from('héllo'), ct), { body: 'héllo' }, String(ct));
    }
  });
  test('binary types and invalid UTF-8 give base64', () => {
    const png = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0, 1, 2]);
    assert.deepEqual(formatBody(png, 'image/png'), { body: png.toString('base64'), encoding: 'base64' });
    assert.deepEqual(formatBody(Buffer.from([0xff, 0xfe]), 'text/plain'), {
      body: '//4=',
      encoding: 'base64',
    });
    assert.deepEqual(formatBody(Buffer.from('abc'), 'application/octet-stream'), {
      body: 'YWJj',
      encoding: 'base64',
    });
  });
});
