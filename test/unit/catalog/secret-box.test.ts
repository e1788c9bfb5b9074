import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { describe, test } from 'node:test';
import { openParams, sealParams } from '../../../src/catalog/sealed-params.js';
import {
  open,
  openJson,
  SecretBoxError,
  seal,
  sealJson,
  secretAad,
} from '../../../src/catalog/secret-box.js';

const key = randomBytes(32);

function flipChar(s: string, at: number): string {
  const c = s[at] === 'A' ? 'B' : 'A';
  return s.slice(0, at) + c + s.slice(at + 1);
}

describe('secret box', () => {
  test('round-trips text, including empty and non-ASCII', () => {
    for (const text of ['hunter2', '', 'pässwörd ✓ 密码', 'x'.repeat(10_000)]) {
      const sealed = seal(key, 'id1:password', text);
      assert.match(sealed, /^v1:[A-Za-z0-9+/=]+:[A-Za-z0-9+/=]+:[A-Za-z0-9+/=]*$/);
      assert.equal(open(key, 'id1:password', sealed), text);
    }
  });

  test('the same text seals differently each time (random IV)', () => {
    assert.notEqual(seal(key, 'a', 'same'), seal(key, 'a', 'same'));
  });

  test('round-trips any JSON value', () => {
    const value = { Authorization: 'Bearer abc', nested: [1, null, true] };
    assert.deepEqual(openJson(key, 'x', sealJson(key, 'x', value)), value);
    assert.equal(openJson(key, 'x', sealJson(key, 'x', 42)), 42);
  });

  test('a different associated data (other source or field) fails', () => {
    const sealed = seal(key, secretAad('src-1', 'password'), 'hunter2');
    assert.throws(() => open(key, secretAad('src-2', 'password'), sealed), SecretBoxError);
    assert.throws(() => open(key, secretAad('src-1', 'token'), sealed), SecretBoxError);
  });

  test('a wrong key fails without echoing anything secret', () => {
    const sealed = seal(key, 'a', 'hunter2');
    assert.throws(
      () => open(randomBytes(32), 'a', sealed),
      (e: Error) =>
        e instanceof SecretBoxError && !e.message.includes('hunter2') && !e.message.includes(sealed),
    );
  });

  test('tampering with IV, tag or ciphertext is detected', () => {
    const sealed = seal(key, 'a', 'hunter2 is the password');
    const [v, iv, tag, ct] = sealed.split(':') as [string, string, string, string];
    for (const bad of [
      [v, flipChar(iv, 0), tag, ct],
      [v, iv, flipChar(tag, 0), ct],
      [v, iv, tag, flipChar(ct, 0)],
      [v, iv, tag, ct.slice(0, -4)],
    ]) {
      assert.throws(() => open(key, 'a', bad.join(':')), SecretBoxError);
    }
  });

  test('malformed or unknown versions fail clearly', () => {
    assert.throws(() => open(key, 'a', 'hunter2'), /malformed/);
    assert.throws(() => open(key, 'a', seal(key, 'a', 'x').replace(/^v1/, 'v9')), /unknown version/);
    assert.throws(() => open(key, 'a', 'v1:AAAA:AAAA:AAAA'), /malformed/);
  });

  test('a key of the wrong length is refused', () => {
    assert.throws(() => seal(randomBytes(16), 'a', 'x'), /32 bytes/);
  });
});

describe('sealed params', () => {
  test('seals only the named, present secrets and opens them back', () => {
    const params = { host: 'db', password: 'hunter2', headers: { 'X-Api-Key': 'k' }, token: undefined };
    const sealed = sealParams(key, 'id-1', params, ['password', 'headers', 'token']);
    assert.deepEqual(sealed.secrets, ['password', 'headers']);
    assert.equal(sealed.params.host, 'db');
    assert.ok(!JSON.stringify(sealed.params).includes('hunter2'));
    assert.ok(!JSON.stringify(sealed.params).includes('X-Api-Key'));
    const opened = openParams(key, { id: 'id-1', name: 'db1' }, sealed.params, sealed.secrets);
    assert.deepEqual(opened, {
      host: 'db',
      password: 'hunter2',
      headers: { 'X-Api-Key': 'k' },
      token: undefined,
    });
  });

  test('opening under another source id fails naming the source and parameter only', () => {
    const sealed = sealParams(key, 'id-1', { password: 'hunter2' }, ['password']);
    assert.throws(
      () => openParams(key, { id: 'id-2', name: 'sales' }, sealed.params, sealed.secrets),
      (e: Error) =>
        e.name === 'CatalogSecretError' &&
        e.message.includes("'password'") &&
        e.message.includes("'sales'") &&
        !e.message.includes('hunter2'),
    );
  });
});
