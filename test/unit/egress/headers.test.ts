import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { EgressError } from '../../../src/egress/errors.js';
import { buildUpstreamHeaders, validateHeaders } from '../../../src/egress/headers.js';

function refusedNaming(headers: Record<string, unknown>, name: string) {
  assert.throws(
    () => validateHeaders(headers),
    (e: unknown) =>
      e instanceof EgressError && e.errorCode === 'invalid_request' && e.message.includes(`'${name}'`),
    `header ${name} should be refused by name`,
  );
}

describe('caller headers', () => {
  test('ordinary headers pass, lower-cased into a null-prototype map', () => {
    const h = validateHeaders({
      'X-Request-Id': 'abc',
      Accept: 'application/json',
      'Content-Type': 'text/plain',
    });
    assert.equal(Object.getPrototypeOf(h), null);
    assert.deepEqual(
      { ...h },
      { 'x-request-id': 'abc', accept: 'application/json', 'content-type': 'text/plain' },
    );
  });
  test('__proto__ and constructor are just names', () => {
    const input = JSON.parse('{"__proto__":"x","constructor":"y"}');
    const h = validateHeaders(input);
    // biome-ignore lint/suspicious/noProto: the point is a plain key named __proto__
    assert.equal(h['__proto__'], 'x');
    assert.equal(h.constructor, 'y');
    assert.equal(Object.getPrototypeOf(h), null);
  });
  test('protected headers refused, naming the header, in any case', () => {
    for (const name of [
      'Authorization',
      'authorization',
      'Host',
      'Cookie',
      'Proxy-Authorization',
      'Proxy-Foo',
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
      'X-Forwarded-Host',
      'x-forwarded-proto',
      'X-Real-IP',
      'Range',
    ]) {
      refusedNaming({ [name]: 'v' }, name);
    }
  });
  test('names must be RFC 9110 tokens', () => {
    for (const name of ['bad name', 'a:b', ':authority', 'a\nb', 'é', '', 'a(b)']) {
      assert.throws(() => validateHeaders({ [name]: 'v' }), /not a valid header name/);
    }
  });
  test('values must not hold CR, LF, NUL or other controls', () => {
    for (const v of ['a\r\nInjected: 1', 'a\nb', 'a\rb', 'a\u0000b', 'a\u0007b', 'a\u2028b']) {
      assert.throws(() => validateHeaders({ 'X-A': v }), /control character|non-Latin-1/);
    }
    assert.equal(validateHeaders({ 'X-A': 'tab\tok' })['x-a'], 'tab\tok');
  });
  test('values must be strings; the whole must be an object; no duplicates by case', () => {
    assert.throws(() => validateHeaders({ 'X-A': 1 }), /must be a string/);
    assert.throws(() => validateHeaders(['a']), /object of strings/);
    assert.throws(() => validateHeaders('x'), /object of strings/);
    assert.throws(() => validateHeaders({ 'X-A': '1', 'x-a': '2' }), /more than once/);
  });
});

describe('upstream headers', () => {
  test('defaults, then caller, then forced identity encoding, then the token last', () => {
    const h = buildUpstreamHeaders({
      defaults: { 'X-Api-Version': '1', Accept: 'text/plain' },
      caller: { Accept: 'application/json', 'Accept-Encoding': 'gzip, br' },
      contentType: 'application/json',
      token: 'tok-123',
    });
    assert.equal(h.accept, 'application/json');
    assert.equal(h['x-api-version'], '1');
    assert.equal(h['accept-encoding'], 'identity');
    assert.equal(h['content-type'], 'application/json');
    assert.equal(h.authorization, 'Bearer tok-123');
    const keys = Object.keys(h);
    assert.equal(keys[keys.length - 1], 'authorization');
  });
  test("the caller's content type wins over the default for the body kind", () => {
    const h = buildUpstreamHeaders({
      caller: { 'Content-Type': 'application/xml' },
      contentType: 'text/plain',
      token: 't',
    });
    assert.equal(h['content-type'], 'application/xml');
  });
  test('the token cannot be replaced by a caller', () => {
    assert.throws(
      () => buildUpstreamHeaders({ caller: { Authorization: 'Bearer mine' }, token: 't' }),
      /Authorization/,
    );
  });
  test('an unusable token is refused without echoing it', () => {
    assert.throws(
      () => buildUpstreamHeaders({ token: 'se\ncret' }),
      (e: unknown) =>
        e instanceof EgressError && !e.message.includes('se\ncret') && /bearer_token/.test(e.message),
    );
  });
});
