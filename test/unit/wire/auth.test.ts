/** The password plugins against what clients compute (the formulas of mysql2 and libmysqlclient). */
import assert from 'node:assert/strict';
import { constants, publicEncrypt } from 'node:crypto';
import { test } from 'node:test';
import {
  CACHING_SHA2,
  checkSha2Digest,
  checkToken,
  NATIVE,
  nativeToken,
  newScramble,
  rsaKeys,
  sha2Digest,
  sha2Token,
} from '../../../src/wire/auth.js';
import { PasswordExchange, type WireCredential } from '../../../src/wire/handshake.js';

test('scrambles are 20 bytes without NUL', () => {
  for (let i = 0; i < 50; i++) {
    const s = newScramble();
    assert.equal(s.length, 20);
    assert.ok(!s.includes(0));
  }
});

test('mysql_native_password: a known vector and a wrong password', () => {
  // From MySQL's own test suite formula: SHA1(pw) XOR SHA1(scramble + SHA1(SHA1(pw))).
  const scramble = Buffer.from('0123456789abcdefghij');
  const token = nativeToken('secret', scramble);
  assert.equal(token.length, 20);
  assert.ok(checkToken(NATIVE, 'secret', scramble, token));
  assert.ok(!checkToken(NATIVE, 'Secret', scramble, token));
  assert.ok(!checkToken(NATIVE, 'secret', Buffer.from('0123456789abcdefghiX'), token));
});

test('caching_sha2_password: fast path succeeds, a wrong token asks for the full path', async () => {
  const scramble = newScramble();
  const ok = new PasswordExchange('pw', scramble, false);
  assert.deepEqual(ok.first(CACHING_SHA2, sha2Token('pw', scramble)), {
    kind: 'sendThenOk',
    payload: Buffer.from([1, 3]),
  });
  const tls = new PasswordExchange('pw', scramble, true);
  assert.deepEqual(tls.first(CACHING_SHA2, sha2Token('nope', scramble)), {
    kind: 'send',
    payload: Buffer.from([1, 4]),
  });
  assert.deepEqual(await tls.next(Buffer.from('pw\0')), { kind: 'ok' });
  const tls2 = new PasswordExchange('pw', scramble, true);
  tls2.first(CACHING_SHA2, sha2Token('wrong', scramble));
  assert.deepEqual(await tls2.next(Buffer.from('nope\0')), { kind: 'denied' });
});

test('caching_sha2_password full path without TLS: the public key, then RSA-OAEP as clients encrypt', async () => {
  const scramble = newScramble();
  const ex = new PasswordExchange('pässword', scramble, false);
  ex.first(CACHING_SHA2, sha2Token('wrong', scramble));
  const key = await ex.next(Buffer.from([2]));
  assert.equal(key.kind, 'send');
  const pem = key.kind === 'send' ? key.payload.subarray(1).toString() : '';
  assert.match(pem, /BEGIN PUBLIC KEY/);
  const plain = Buffer.from('pässword\0', 'utf8');
  for (let i = 0; i < plain.length; i++) plain[i] ^= scramble[i % scramble.length];
  const enc = publicEncrypt({ key: pem, padding: constants.RSA_PKCS1_OAEP_PADDING, oaepHash: 'sha1' }, plain);
  assert.deepEqual(await ex.next(enc), { kind: 'ok' });
  // A cleartext password over plain TCP is refused.
  const clear = new PasswordExchange('pässword', scramble, false);
  clear.first(CACHING_SHA2, sha2Token('wrong', scramble));
  assert.deepEqual(await clear.next(Buffer.from('pässword\0')), { kind: 'denied' });
  assert.ok((await rsaKeys()).publicPem.length > 100);
});

test('a client offering another plugin is switched to mysql_native_password', async () => {
  const scramble = newScramble();
  const ex = new PasswordExchange('pw', scramble, false);
  const step = ex.first('client_ed25519', Buffer.alloc(32));
  assert.equal(step.kind, 'send');
  assert.equal(step.kind === 'send' && step.payload[0], 0xfe);
  assert.deepEqual(await ex.next(nativeToken('pw', scramble)), { kind: 'ok' });
});

test('no password at all is denied at once; an empty mysql_native_password answer asks for a switch to it', async () => {
  const scramble = newScramble();
  for (const empty of [Buffer.alloc(0), Buffer.from([0])])
    assert.deepEqual(new PasswordExchange('pw', scramble, false).first(CACHING_SHA2, empty), {
      kind: 'denied',
    });
  // `mariadb --default-auth=mysql_native_password`: its plugin is not the greeting's, so it sends nothing.
  const ex = new PasswordExchange('pw', scramble, false);
  assert.deepEqual(ex.first(NATIVE, Buffer.alloc(0)), {
    kind: 'send',
    payload: Buffer.concat([
      Buffer.from([0xfe]),
      Buffer.from('mysql_native_password\0'),
      scramble,
      Buffer.from([0]),
    ]),
  });
  assert.deepEqual(await ex.next(nativeToken('pw', scramble)), { kind: 'ok' });
  const none = new PasswordExchange('pw', scramble, false);
  none.first(NATIVE, Buffer.alloc(0));
  assert.deepEqual(await none.next(Buffer.alloc(0)), { kind: 'denied' });
});

/** A user known only by a hash (auth.users_file): checked in full, then by the remembered digest. */
function hashedUser(password: string) {
  let digest: Buffer | null = null;
  const checked: string[] = [];
  const cred: WireCredential = {
    password: null,
    sha2Digest: () => digest,
    verify: async (sent) => {
      checked.push(sent.toString('utf8'));
      if (sent.toString('utf8') !== password) return false;
      digest = sha2Digest(password);
      return true;
    },
  };
  return { cred, checked };
}

test('a hashed user: mysql_native_password is switched to caching_sha2_password, whose full path checks the password', async () => {
  const scramble = newScramble();
  const { cred, checked } = hashedUser('pw');
  const native = new PasswordExchange(cred, scramble, false);
  const sw = native.first(NATIVE, nativeToken('pw', scramble));
  assert.deepEqual(sw, {
    kind: 'send',
    payload: Buffer.concat([
      Buffer.from([0xfe]),
      Buffer.from('caching_sha2_password\0'),
      scramble,
      Buffer.from([0]),
    ]),
  });
  // Nothing remembered yet: the fast path asks for the password, over TLS in clear.
  assert.deepEqual(await native.next(sha2Token('pw', scramble)), {
    kind: 'send',
    payload: Buffer.from([1, 4]),
  });
  assert.deepEqual(await native.next(Buffer.from('pw\0')), { kind: 'denied' }, 'not in clear without TLS');
  const tls = new PasswordExchange(cred, scramble, true);
  assert.deepEqual(tls.first(CACHING_SHA2, sha2Token('pw', scramble)), {
    kind: 'send',
    payload: Buffer.from([1, 4]),
  });
  assert.deepEqual(await tls.next(Buffer.from('pw\0')), { kind: 'ok' });
  assert.deepEqual(checked, ['pw']);
  // Remembered: the next connection takes the fast path, with no check of the hash.
  const fast = new PasswordExchange(cred, scramble, false);
  assert.deepEqual(fast.first(CACHING_SHA2, sha2Token('pw', scramble)), {
    kind: 'sendThenOk',
    payload: Buffer.from([1, 3]),
  });
  const wrong = new PasswordExchange(cred, scramble, false);
  assert.deepEqual(wrong.first(CACHING_SHA2, sha2Token('nope', scramble)), {
    kind: 'send',
    payload: Buffer.from([1, 4]),
  });
});

test('a hashed user without TLS: the password RSA-encrypted; a wrong one denied after a check', async () => {
  const scramble = newScramble();
  const { cred, checked } = hashedUser('pässword');
  for (const [password, want] of [
    ['nope', 'denied'],
    ['pässword', 'ok'],
  ] as const) {
    const ex = new PasswordExchange(cred, scramble, false);
    ex.first(CACHING_SHA2, sha2Token(password, scramble));
    const key = await ex.next(Buffer.from([2]));
    const pem = key.kind === 'send' ? key.payload.subarray(1).toString() : '';
    const plain = Buffer.from(`${password}\0`, 'utf8');
    for (let i = 0; i < plain.length; i++) plain[i] ^= scramble[i % scramble.length];
    const enc = publicEncrypt(
      { key: pem, padding: constants.RSA_PKCS1_OAEP_PADDING, oaepHash: 'sha1' },
      plain,
    );
    assert.deepEqual(await ex.next(enc), { kind: want }, password);
  }
  assert.deepEqual(checked, ['nope', 'pässword']);
  assert.ok(checkSha2Digest(sha2Digest('pässword'), scramble, sha2Token('pässword', scramble)));
  assert.ok(!checkSha2Digest(sha2Digest('pässword'), scramble, sha2Token('passwort', scramble)));
});
