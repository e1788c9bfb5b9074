import assert from 'node:assert/strict';
import net from 'node:net';
import { SqlError } from '../../../src/core/errors.js';

/** A loopback port with nothing listening (bound, then released). */
export function closedPort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = net.createServer();
    srv.once('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const { port } = srv.address() as net.AddressInfo;
      srv.close(() => resolve(port));
    });
  });
}

/** Awaits a rejection with a SqlError of this code and message; returns it. */
export async function expectSqlError(
  p: Promise<unknown>,
  code: number,
  message: string | RegExp,
): Promise<SqlError> {
  try {
    await p;
  } catch (e) {
    assert.ok(e instanceof SqlError, `expected a SqlError, got ${String(e)}`);
    assert.equal(e.code, code, e.message);
    if (typeof message === 'string') assert.equal(e.message, message);
    else assert.match(e.message, message);
    return e;
  }
  assert.fail(`expected SqlError ${code}`);
}

/** Polls until `check` is true (a state change on the server, not a timing assumption). */
export async function waitFor(check: () => Promise<boolean>, ms = 10000): Promise<void> {
  const end = Date.now() + ms;
  while (Date.now() < end) {
    if (await check()) return;
    await new Promise((r) => setTimeout(r, 50));
  }
  assert.fail('condition not reached');
}
