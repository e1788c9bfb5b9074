/** The byte bound before authentication, and the packet reader on an empty packet (an empty auth answer). */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { PacketParser } from '../../../src/wire/packets.js';
import { PREAUTH_MAX_BYTES, PreAuthBudget } from '../../../src/wire/preauth-limits.js';

test('a connection may send 16 KiB before it logs in, not a byte more', () => {
  assert.equal(PREAUTH_MAX_BYTES, 16 * 1024);
  const b = new PreAuthBudget();
  assert.equal(b.take(16 * 1024 - 1), true);
  assert.equal(b.take(1), true);
  assert.equal(b.take(1), false);
  assert.equal(new PreAuthBudget().take(64 * 1024), false, 'one big chunk is refused unread');
});

test('an empty packet is read as an empty payload, alone or between others', () => {
  const got: [number, number][] = [];
  const p = new PacketParser(1024, (payload, seq) => {
    got.push([payload.length, seq]);
    return true;
  });
  assert.equal(p.push(Buffer.from('00000003', 'hex')), null);
  assert.equal(p.push(Buffer.from('0100000461000000050200', 'hex')), null);
  assert.deepEqual(got, [
    [0, 3],
    [1, 4],
    [0, 5],
  ]);
});
