import assert from 'node:assert/strict';
import { test } from 'node:test';
import { charsetNamed } from '../../../src/wire/charsets.js';
import { PacketIn, PacketOut, PacketParser, PacketTooLarge } from '../../../src/wire/packets.js';
import { bindParams, placeholders, readParams } from '../../../src/wire/params.js';

test('placeholders skip strings, quoted names and comments', () => {
  const sql = 'SELECT \'?\', `a?`, "?" -- ?\n, ? /* ? */ FROM t WHERE x = ? # ?';
  const at = placeholders(sql);
  assert.equal(at.length, 2);
  assert.equal(bindParams(sql, at, ['1', "'it''s'"]).includes("x = 'it''s'"), true);
});

test('binary parameters become literals: ints, doubles, strings, bytes, dates, NULL', () => {
  const out = new PacketOut();
  out.begin();
  out.int1(0b0000_0100); // third is NULL
  out.int1(1);
  for (const t of [0x08, 0x05, 0x06, 0xfd, 0xfc, 0x0c, 0x03 | 0x8000]) out.int2(t);
  out.int8(-5n);
  out.double(2.5);
  out.lenencText("it's");
  out.lenencBytes(Buffer.from([0xff, 0x00]));
  out.int1(7).int2(2024).int1(2).int1(3).int1(4).int1(5).int1(6);
  out.int4(4000000000);
  out.end();
  const framed = out.take();
  const { values } = readParams(new PacketIn(framed.subarray(4)), 7, null, new Map());
  assert.deepEqual(values, [
    '-5',
    '2.5',
    'NULL',
    "'it\\'s'",
    "X'ff00'",
    "'2024-02-03 04:05:06'",
    '4000000000',
  ]);
});

test('the parser joins split packets and refuses one above max_allowed_packet before buffering it', () => {
  const got: Buffer[] = [];
  const p = new PacketParser(100, (b) => {
    got.push(b);
    return true;
  });
  const out = new PacketOut();
  out.begin().text('hello').end();
  out.begin().text('world').end();
  const bytes = out.take();
  p.push(bytes.subarray(0, 3));
  p.push(bytes.subarray(3, 12));
  p.push(bytes.subarray(12));
  assert.deepEqual(got.map(String), ['hello', 'world']);
  const big = Buffer.alloc(4);
  big.writeUIntLE(1000, 0, 3);
  assert.throws(() => p.push(big), PacketTooLarge);
});

test('on a latin1 connection text parameters are converted; blob parameters stay bytes', () => {
  const out = new PacketOut();
  out.begin();
  out.int1(0);
  out.int1(1);
  for (const t of [0xfd, 0xfc]) out.int2(t);
  out.lenencBytes(Buffer.from([0x63, 0x61, 0x66, 0xe9, 0x80]));
  out.lenencBytes(Buffer.from([0xe9]));
  out.end();
  const framed = out.take();
  const { values } = readParams(
    new PacketIn(framed.subarray(4)),
    2,
    null,
    new Map(),
    charsetNamed('latin1')!,
  );
  assert.deepEqual(values, ["'café€'", "X'e9'"]);
});
