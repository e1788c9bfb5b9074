import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { EgressError } from '../../../src/egress/errors.js';
import {
  assertHostAllowed,
  buildUrl,
  isHostAllowed,
  normalizeAllowedHosts,
  normalizeHost,
  parseBaseUrl,
  validatePath,
} from '../../../src/egress/safe-url.js';

function refused(fn: () => unknown, code = 'invalid_request', pattern?: RegExp) {
  assert.throws(fn, (e: unknown) => {
    assert.ok(e instanceof EgressError, `expected EgressError, got ${e}`);
    assert.equal(e.errorCode, code);
    if (pattern) assert.match(e.message, pattern);
    return true;
  });
}

describe('base_url', () => {
  test('http and https accepted; one trailing slash ignored', () => {
    assert.equal(parseBaseUrl('https://api.example.com/').href, 'https://api.example.com');
    assert.equal(parseBaseUrl('https://api.example.com/v1/').href, 'https://api.example.com/v1');
    assert.equal(parseBaseUrl('http://API.Example.COM:8080/v1').href, 'http://api.example.com:8080/v1');
    const b = parseBaseUrl('https://api.example.com/v1');
    assert.equal(b.host, 'api.example.com');
    assert.equal(b.pathname, '/v1');
    assert.equal(b.origin, 'https://api.example.com');
  });
  test('other schemes, user information, query and fragment refused', () => {
    refused(() => parseBaseUrl('ftp://example.com'), 'invalid_request', /http or https/);
    refused(() => parseBaseUrl('file:///etc/passwd'), 'invalid_request', /http or https/);
    refused(() => parseBaseUrl('https://user:pw@example.com'), 'invalid_request', /user information/);
    refused(() => parseBaseUrl('https://user@example.com'), 'invalid_request', /user information/);
    refused(() => parseBaseUrl('https://@example.com'), 'invalid_request', /user information/);
    refused(() => parseBaseUrl('https://example.com/?a=1'), 'invalid_request', /query/);
    refused(() => parseBaseUrl('https://example.com/?'), 'invalid_request', /query/);
    refused(() => parseBaseUrl('https://example.com/#x'), 'invalid_request', /fragment/);
    refused(() => parseBaseUrl('not a url'), 'invalid_request');
    refused(() => parseBaseUrl(''), 'invalid_request');
    refused(() => parseBaseUrl(42), 'invalid_request');
    refused(() => parseBaseUrl('https://exa mple.com'), 'invalid_request');
    refused(() => parseBaseUrl('https://example.com\\@evil.com'), 'invalid_request');
  });
  test('IP literal spellings are canonicalised by the URL parser', () => {
    assert.equal(parseBaseUrl('http://127.1').host, '127.0.0.1');
    assert.equal(parseBaseUrl('http://2130706433').host, '127.0.0.1');
    assert.equal(parseBaseUrl('http://0x7f000001').host, '127.0.0.1');
    assert.equal(parseBaseUrl('http://[::ffff:127.0.0.1]').host, '[::ffff:7f00:1]');
  });
});

describe('path rules (SPEC §7)', () => {
  test('ordinary paths pass', () => {
    for (const p of [
      '/',
      '/users',
      '/users/42',
      '/a/b/',
      '/files/my%20doc',
      '/search;v=1',
      '/a.b/c..d/.e',
      '/~user',
      '/é',
    ]) {
      assert.equal(validatePath(p), p);
    }
  });
  test('must start with exactly one slash', () => {
    refused(() => validatePath('users'), 'invalid_request', /start with '\/'/);
    refused(() => validatePath(''), 'invalid_request');
    refused(() => validatePath('//evil.example.com/x'), 'invalid_request', /'\/\/'/);
    refused(() => validatePath(undefined), 'invalid_request');
  });
  test('query, fragment, backslash, double slash refused', () => {
    refused(() => validatePath('/a?b=1'), 'invalid_request', /'\?'/);
    refused(() => validatePath('/a#b'), 'invalid_request', /'#'/);
    refused(() => validatePath('/a\\b'), 'invalid_request', /'\\'/);
    refused(() => validatePath('/a//b'), 'invalid_request', /'\/\/'/);
  });
  test('encoded slash and backslash refused in either hex case', () => {
    for (const p of ['/a%2Fb', '/a%2fb', '/a%5Cb', '/a%5cb'])
      refused(() => validatePath(p), 'invalid_request', /encoded/);
  });
  test('control characters and spaces refused, raw or encoded', () => {
    for (const p of ['/a b', '/a\tb', '/a\nb', '/a\rb', '/a\u0000b', '/a\u007fb', '/a\u0085b']) {
      refused(() => validatePath(p), 'invalid_request');
    }
    for (const p of ['/a%00b', '/a%0Ab', '/a%0db', '/a%7F'])
      refused(() => validatePath(p), 'invalid_request', /encoded/);
  });
  test('dot segments in every spelling refused', () => {
    for (const p of [
      '/.',
      '/..',
      '/a/./b',
      '/a/../b',
      '/a/..',
      '/%2e',
      '/%2E',
      '/%2e%2e',
      '/%2E%2E/x',
      '/.%2e/x',
      '/%2e./x',
      '/a/%2E%2e',
      '/..;/admin',
      '/.;x/y',
    ]) {
      refused(() => validatePath(p), 'invalid_request', /segments/);
    }
  });
  test('double-encoded dangerous characters and malformed escapes refused', () => {
    refused(() => validatePath('/%252e%252e/x'), 'invalid_request', /double-encoded/);
    refused(() => validatePath('/a%252Fb'), 'invalid_request', /double-encoded/);
    refused(() => validatePath('/a%zz'), 'invalid_request', /malformed/);
    refused(() => validatePath('/a%2'), 'invalid_request', /malformed/);
  });
});

describe('building URLs', () => {
  const base = parseBaseUrl('https://api.example.com/v1/');
  test('concatenates base and path; query only from the object', () => {
    assert.equal(buildUrl(base, '/users').href, 'https://api.example.com/v1/users');
    assert.equal(buildUrl(base, '/').href, 'https://api.example.com/v1/');
    assert.equal(
      buildUrl(base, '/search', { q: 'a b&c=d', page: '2' }).href,
      'https://api.example.com/v1/search?q=a+b%26c%3Dd&page=2',
    );
    const root = parseBaseUrl('http://127.0.0.1:9999');
    assert.equal(buildUrl(root, '/x').href, 'http://127.0.0.1:9999/x');
  });
  test('a path can never change the host', () => {
    refused(() => buildUrl(base, '//evil.com/x'));
    refused(() => buildUrl(base, '@evil.com'));
    // '@' inside a path is only a path character after concatenation.
    assert.equal(buildUrl(base, '/@evil.com').host, 'api.example.com');
    assert.equal(buildUrl(base, '/:443@evil.com').host, 'api.example.com');
  });
  test('query values must be strings', () => {
    refused(() => buildUrl(base, '/x', { a: 1 }), 'invalid_request', /query\.a/);
    refused(() => buildUrl(base, '/x', ['a']), 'invalid_request');
    refused(() => buildUrl(base, '/x', 'a=1'), 'invalid_request');
  });
});

describe('host normalisation and allowlist', () => {
  test('lower case, one trailing dot, punycode, canonical IPs', () => {
    assert.equal(normalizeHost('API.Example.COM'), 'api.example.com');
    assert.equal(normalizeHost('api.example.com.'), 'api.example.com');
    assert.equal(normalizeHost('bücher.example'), 'xn--bcher-kva.example');
    assert.equal(normalizeHost('xn--bcher-kva.example'), 'xn--bcher-kva.example');
    assert.equal(normalizeHost('127.1'), '127.0.0.1');
    assert.equal(normalizeHost('::1'), '[::1]');
    assert.equal(normalizeHost('[::1]'), '[::1]');
  });
  test('ports, paths, user info and wildcards are not host names', () => {
    for (const h of ['example.com:443', 'example.com/x', 'u@example.com', '*.example.com', '', 'a b']) {
      refused(() => normalizeHost(h));
    }
    refused(() => normalizeAllowedHosts(['*', 'example.com']), 'invalid_request', /only entry/);
  });
  test('allowlist check on the normalised host; ["*"] disables it', () => {
    const allowed = normalizeAllowedHosts(['API.example.com.', 'bücher.example']);
    assert.deepEqual(allowed, ['api.example.com', 'xn--bcher-kva.example']);
    assert.equal(isHostAllowed(new URL('https://api.example.com/x'), allowed), true);
    assert.equal(isHostAllowed(new URL('https://api.example.com./x'), allowed), true);
    assert.equal(isHostAllowed(new URL('https://BÜCHER.example/x'), allowed), true);
    assert.equal(isHostAllowed(new URL('https://evil.example.com/x'), allowed), false);
    assert.equal(isHostAllowed(new URL('https://api.example.com.evil.com/x'), allowed), false);
    assert.equal(isHostAllowed(new URL('https://anything.example/x'), ['*']), true);
    refused(
      () => assertHostAllowed(new URL('https://other.example:8443/x'), allowed),
      'host_not_allowed',
      /^host 'other\.example' is not in the datasource allowlist$/,
    );
  });
});
