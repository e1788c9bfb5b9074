/** auth.users_file: the format, its errors naming the entry, scrypt hashes, reloads; the OAuth groups claim. */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { after, describe, test } from 'node:test';
import pino from 'pino';
import { groupsOf } from '../../../src/auth/oauth/claims.js';
import { hashPassword, parsePasswordHash, verifyPassword } from '../../../src/auth/password-hash.js';
import { UserDirectory } from '../../../src/auth/users.js';
import { parseUsersFile, UsersFile, UsersFileError } from '../../../src/auth/users-file.js';

const dir = mkdtempSync(join(tmpdir(), 'tributary-users-'));
after(() => rmSync(dir, { recursive: true, force: true }));
const logs: string[] = [];
const logger = pino(
  { level: 'debug' },
  new Writable({
    write(chunk, _e, cb) {
      logs.push(String(chunk));
      cb();
    },
  }),
);

describe('password hashes', () => {
  test('hash-password output verifies the password and nothing else', async () => {
    const text = await hashPassword('pässword 1');
    assert.match(text, /^scrypt\$N=32768,r=8,p=1\$[A-Za-z0-9_-]{22}\$[A-Za-z0-9_-]{43}$/);
    const h = parsePasswordHash(text);
    assert.ok(typeof h !== 'string');
    assert.equal(await verifyPassword('pässword 1', h), true);
    assert.equal(await verifyPassword('pässword 2', h), false);
    assert.equal(await verifyPassword('', h), false);
    // A fresh salt each time.
    assert.notEqual(await hashPassword('pässword 1'), text);
  });

  test('many checks at once all answer (four run at a time, the rest wait in line)', async () => {
    const h = parsePasswordHash(await hashPassword('pw'));
    assert.ok(typeof h !== 'string');
    const answers = await Promise.all(
      Array.from({ length: 10 }, (_, i) => verifyPassword(i % 2 ? 'pw' : 'no', h)),
    );
    assert.deepEqual(
      answers,
      Array.from({ length: 10 }, (_, i) => i % 2 === 1),
    );
  });

  test('hashes a file may not hold are refused with the reason', () => {
    const salt = 'c2FsdHNhbHRzYWx0c2FsdA';
    const hash = 'aGFzaGhhc2hoYXNoaGFzaGhhc2hoYXNoaGFzaGhhc2g';
    for (const [text, why] of [
      ['plaintext', /not of the form/],
      [`bcrypt$N=1024,r=8,p=1$${salt}$${hash}`, /not of the form/],
      [`scrypt$N=1000,r=8,p=1$${salt}$${hash}`, /power of two/],
      [`scrypt$N=1048576,r=8,p=1$${salt}$${hash}`, /256 MiB/],
      [`scrypt$N=1024,r=8$${salt}$${hash}`, /lacks a scrypt parameter/],
      [`scrypt$N=1024,r=8,p=1,x=2$${salt}$${hash}`, /unreadable/],
      [`scrypt$N=1024,r=8,p=1$${salt}$not+base64url`, /base64url/],
      [`scrypt$N=1024,r=8,p=1$c2Fs$${hash}`, /salt shorter/],
    ] as const) {
      const h = parsePasswordHash(text);
      assert.equal(typeof h, 'string', text);
      assert.match(h as string, why, text);
    }
  });
});

describe('the users file', () => {
  test('a good file gives each user its groups', async () => {
    const hash = await hashPassword('pw');
    const users = parseUsersFile(
      JSON.stringify([
        { username: 'ana', password_hash: hash, groups: ['support', 'eu', 'support'] },
        { username: 'bo', password_hash: hash },
      ]),
      '/x/users.json',
      'admin',
    );
    assert.deepEqual([...users.keys()], ['ana', 'bo']);
    assert.deepEqual(users.get('ana')?.groups, ['support', 'eu']);
    assert.deepEqual(users.get('bo')?.groups, []);
  });

  test('a bad entry is named by its place and user', async () => {
    const hash = await hashPassword('pw');
    const cases: [unknown, RegExp][] = [
      [{}, /expected a JSON array/],
      [[{ username: 'ana', password_hash: hash }, 'x'], /entry 2: expected an object/],
      [[{ username: 'ana', password_hash: 'secret' }], /entry 1 \("ana"\): password_hash is not of the form/],
      [[{ username: 'ana', password_hash: hash, group: ['x'] }], /entry 1 \("ana"\): unknown key 'group'/],
      [[{ username: '', password_hash: hash }], /entry 1 \(""\): username must be a non-empty string/],
      [[{ username: 'a\u0000b', password_hash: hash }], /control characters/],
      [[{ username: 'admin', password_hash: hash }], /entry 1 \("admin"\): is TRIBUTARY_USERNAME/],
      [
        [
          { username: 'ana', password_hash: hash },
          { username: 'ana', password_hash: hash },
        ],
        /entry 2 \("ana"\): username 'ana' appears twice/,
      ],
      [[{ username: 'ana', password_hash: hash, groups: 'support' }], /groups must be an array/],
    ];
    for (const [doc, want] of cases)
      assert.throws(
        () => parseUsersFile(JSON.stringify(doc), '/x/users.json', 'admin'),
        want,
        JSON.stringify(doc),
      );
    assert.throws(() => parseUsersFile('[{', '/x/users.json', 'admin'), /users\.json: not valid JSON/);
    assert.throws(() => parseUsersFile('[{', '/x/users.json', 'admin'), UsersFileError);
  });

  test('a changed file applies; a bad one keeps the users before and logs why', async () => {
    const path = join(dir, 'reload.json');
    const hash = await hashPassword('pw');
    writeFileSync(path, JSON.stringify([{ username: 'ana', password_hash: hash, groups: ['a'] }]));
    const f = new UsersFile(path, 'admin', logger);
    assert.deepEqual(f.get('ana')?.groups, ['a']);
    writeFileSync(path, JSON.stringify([{ username: 'ana', password_hash: hash, groups: ['b'] }]));
    assert.equal(f.reload(), true);
    assert.deepEqual(f.get('ana')?.groups, ['b']);
    assert.equal(f.version, 1);
    writeFileSync(path, JSON.stringify([{ username: 'ana', password_hash: 'oops' }]));
    assert.equal(f.reload(), false);
    assert.deepEqual(f.get('ana')?.groups, ['b']);
    assert.ok(logs.some((l) => l.includes('users file not reloaded') && l.includes('entry 1 (\\"ana\\")')));
    // A file that cannot be read at start is refused, named.
    assert.throws(
      () => new UsersFile(join(dir, 'missing.json'), null, logger),
      /missing\.json: cannot be read \(ENOENT\)/,
    );
  });

  test('the directory: the admin by its password, file users by their hash, an unknown user refused alike', async () => {
    const path = join(dir, 'dir.json');
    writeFileSync(
      path,
      JSON.stringify([{ username: 'ana', password_hash: await hashPassword('ana pw'), groups: ['g'] }]),
    );
    const users = new UserDirectory({ username: 'admin', password: 'admin pw' }, path, logger);
    try {
      assert.deepEqual(
        { ...(await users.verify('admin', 'admin pw')) },
        { user: 'admin', admin: true, groups: [], password: 'admin pw' },
      );
      assert.equal(await users.verify('admin', 'ana pw'), null);
      const ana = await users.verify('ana', 'ana pw');
      assert.equal(ana?.user, 'ana');
      assert.equal(ana?.admin, false);
      assert.deepEqual(ana?.groups, ['g']);
      assert.ok(users.sha2Digest(ana!), 'the fast-path digest is remembered after a login');
      assert.equal(await users.verify('ana', 'admin pw'), null);
      assert.equal(await users.verify('nobody', 'ana pw'), null);
    } finally {
      users.close();
    }
  });
});

test('OAuth groups: an array of strings or a space-separated string, nothing else', () => {
  assert.deepEqual(groupsOf({ groups: ['a', 'b', 'a', 3, ''] }, 'groups'), ['a', 'b']);
  assert.deepEqual(groupsOf({ groups: 'a  b' }, 'groups'), ['a', 'b']);
  assert.deepEqual(groupsOf({ roles: ['r'] }, 'roles'), ['r']);
  assert.deepEqual(groupsOf({ groups: { a: 1 } }, 'groups'), []);
  assert.deepEqual(groupsOf({}, 'groups'), []);
  assert.deepEqual(groupsOf({ groups: ['a'] }, undefined), []);
  // Not a prototype property.
  assert.deepEqual(groupsOf({}, 'toString'), []);
});
