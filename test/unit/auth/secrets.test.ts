import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { BoundedCache } from '../../../src/auth/cache.js';
import {
  bearerCredential,
  constantTimeEqual,
  newAccessToken,
  sha256Hex,
  TOKEN_PREFIX,
} from '../../../src/auth/secrets.js';

describe('secrets', () => {
  test('access tokens are prefixed, 32 random bytes in base64url, and unique', () => {
    const a = newAccessToken();
    const b = newAccessToken();
    assert.ok(a.startsWith(TOKEN_PREFIX));
    const body = a.slice(TOKEN_PREFIX.length);
    assert.match(body, /^[A-Za-z0-9_-]{43}$/);
    assert.equal(Buffer.from(body, 'base64url').length, 32);
    assert.notEqual(a, b);
  });

  test('sha256Hex is the lower-case hex digest', () => {
    assert.equal(sha256Hex('abc'), 'ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad');
  });

  test('constantTimeEqual compares whole values of any length', () => {
    assert.equal(constantTimeEqual('secret', 'secret'), true);
    assert.equal(constantTimeEqual('secret', 'secreT'), false);
    assert.equal(constantTimeEqual('secret', 'secret-longer'), false);
    assert.equal(constantTimeEqual('', ''), true);
    assert.equal(constantTimeEqual('', 'x'), false);
  });

  test('bearerCredential reads only the Bearer scheme', () => {
    assert.equal(bearerCredential('Bearer abc.def-ghi_'), 'abc.def-ghi_');
    assert.equal(bearerCredential('bearer   tok=='), 'tok==');
    assert.equal(bearerCredential('Bearer tok  '), 'tok');
    assert.equal(bearerCredential('Basic dXNlcjpwYXNz'), null);
    assert.equal(bearerCredential('Bearer'), null);
    assert.equal(bearerCredential('Bearer a b'), null);
    assert.equal(bearerCredential('Bearer a,b'), null);
    assert.equal(bearerCredential(undefined), null);
    assert.equal(bearerCredential(['Bearer a']), null);
  });
});

describe('BoundedCache', () => {
  test('entries expire after their lifetime', () => {
    let now = 1000;
    const c = new BoundedCache<string>(10, () => now);
    c.set('a', 'x', 50);
    assert.equal(c.get('a'), 'x');
    now = 1049;
    assert.equal(c.get('a'), 'x');
    now = 1050;
    assert.equal(c.get('a'), undefined);
  });

  test('a non-positive lifetime stores nothing', () => {
    const c = new BoundedCache<string>(10);
    c.set('a', 'x', 0);
    c.set('b', 'x', -5);
    assert.equal(c.size, 0);
  });

  test('the oldest entry goes when the bound is reached', () => {
    const c = new BoundedCache<number>(3);
    for (const k of ['a', 'b', 'c', 'd']) c.set(k, 1, 60_000);
    assert.equal(c.size, 3);
    assert.equal(c.get('a'), undefined);
    assert.equal(c.get('d'), 1);
  });
});
