import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { after, before, describe, test } from 'node:test';
import pino from 'pino';
import { sha256Hex } from '../../../src/auth/secrets.js';
import { TokenAuthenticator } from '../../../src/auth/tokens.js';
import { UserDirectory } from '../../../src/auth/users.js';
import { EmbeddedCatalogStore } from '../../../src/catalog/embedded-store.js';

const dir = mkdtempSync(join(tmpdir(), 'tributary-tokens-'));
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
const PASSWORD = 'correct horse battery staple';
let store: EmbeddedCatalogStore;
let now = Date.parse('2030-01-01T00:00:00Z');

function authenticator(
  opts: Partial<ConstructorParameters<typeof TokenAuthenticator>[1]> & { username?: string } = {},
) {
  const { username = 'admin', ...rest } = opts;
  const users = new UserDirectory({ username, password: PASSWORD }, null, logger);
  return new TokenAuthenticator(store, { users, ttlHours: 1, now: () => now, ...rest }, logger);
}

before(async () => {
  store = new EmbeddedCatalogStore({ storageDir: dir, secretKey: randomBytes(32), pollMs: 0 });
  await store.init();
});
after(async () => {
  await store.close();
  rmSync(dir, { recursive: true, force: true });
});

describe('TokenAuthenticator', () => {
  test('login with the right credentials issues a token stored only as its hash', async () => {
    const a = authenticator();
    const issued = await a.login('admin', PASSWORD);
    assert.ok(issued);
    assert.equal(issued.expiresAt.getTime(), now + 3_600_000);
    const rec = await store.getToken(sha256Hex(issued.token));
    assert.equal(rec?.username, 'admin');
    const file = readFileSync(join(dir, 'catalog.json'), 'utf8');
    assert.ok(!file.includes(issued.token), 'the token itself is not in the catalog');
    const r = await a.authenticate(issued.token);
    assert.equal(r.result, 'ok');
    assert.ok(r.result === 'ok');
    assert.equal(r.principal.id, 'admin');
    assert.equal(r.principal.tokenHash, sha256Hex(issued.token));
  });

  test('wrong user and wrong password are both refused', async () => {
    const a = authenticator();
    assert.equal(await a.login('admin', 'nope'), null);
    assert.equal(await a.login('root', PASSWORD), null);
    assert.equal(await a.login('', ''), null);
  });

  test('unknown, foreign and malformed tokens', async () => {
    const a = authenticator();
    assert.equal((await a.authenticate('trb_' + 'A'.repeat(43))).result, 'invalid');
    assert.equal((await a.authenticate('eyJhbGciOi.x.y')).result, 'not_mine');
  });

  test('a token stops working at its expiry and is removed', async () => {
    const a = authenticator();
    const issued = await a.login('admin', PASSWORD);
    assert.ok(issued);
    now += 3_600_000 - 1;
    assert.equal((await a.authenticate(issued.token)).result, 'ok');
    now += 1;
    assert.equal((await a.authenticate(issued.token)).result, 'invalid');
    await new Promise((r) => setTimeout(r, 20));
    assert.equal(await store.getToken(sha256Hex(issued.token)), null);
  });

  test('revoke works at once on this instance despite the cache', async () => {
    const a = authenticator({ cacheMs: 60_000 });
    const issued = await a.login('admin', PASSWORD);
    assert.ok(issued);
    assert.equal((await a.authenticate(issued.token)).result, 'ok');
    await a.revoke(sha256Hex(issued.token));
    assert.equal((await a.authenticate(issued.token)).result, 'invalid');
  });

  test('another instance sees a revocation once its cache lapses', async () => {
    const a = authenticator({ cacheMs: 5_000 });
    const b = authenticator({ cacheMs: 5_000 });
    const issued = await a.login('admin', PASSWORD);
    assert.ok(issued);
    assert.equal((await b.authenticate(issued.token)).result, 'ok');
    await a.revoke(sha256Hex(issued.token));
    now += 5_000;
    assert.equal((await b.authenticate(issued.token)).result, 'invalid');
  });

  test('a token of a user no longer configured is refused', async () => {
    const issued = await authenticator().login('admin', PASSWORD);
    assert.ok(issued);
    const renamed = authenticator({ username: 'someone-else' });
    assert.equal((await renamed.authenticate(issued.token)).result, 'invalid');
  });

  test('logs never carry the password or a token', async () => {
    const issued = await authenticator().login('admin', PASSWORD);
    assert.ok(issued);
    const all = logs.join('');
    assert.ok(all.length > 0);
    assert.ok(!all.includes(PASSWORD));
    assert.ok(!all.includes(issued.token));
  });
});
