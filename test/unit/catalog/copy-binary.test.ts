import assert from 'node:assert/strict';
import { test } from 'node:test';
import { copyBinaryValues } from '../../../src/catalog/copy-binary.js';

/** A one-column binary COPY stream as PostgreSQL writes it (with a header extension). */
function copyData(values: Buffer[]): Buffer {
  const parts = [Buffer.from('PGCOPY\n\xff\r\n\0', 'latin1'), int32(0), int32(3), Buffer.from('ext')];
  for (const v of values) parts.push(int16(1), int32(v.length), v);
  parts.push(int16(-1));
  return Buffer.concat(parts);
}
function int16(n: number): Buffer {
  const b = Buffer.alloc(2);
  b.writeInt16BE(n);
  return b;
}
function int32(n: number): Buffer {
  const b = Buffer.alloc(4);
  b.writeInt32BE(n);
  return b;
}
async function* pieces(data: Buffer, size: number): AsyncGenerator<Buffer> {
  for (let i = 0; i < data.length; i += size) yield data.subarray(i, i + size);
}
async function read(source: AsyncIterable<Buffer>): Promise<Buffer[]> {
  const out: Buffer[] = [];
  for await (const v of copyBinaryValues(source)) out.push(Buffer.from(v));
  return out;
}

test('values come back whole however the stream is cut', async () => {
  const values = [Buffer.from('hello'), Buffer.alloc(0), Buffer.alloc(70_000, 7), Buffer.from([0, 255])];
  const data = copyData(values);
  for (const size of [1, 3, 7, 1000, 65_536, data.length])
    assert.deepEqual(await read(pieces(data, size)), values);
});

test('no rows: nothing; a stream cut before its trailer or without the signature is an error', async () => {
  assert.deepEqual(await read(pieces(copyData([]), 5)), []);
  const data = copyData([Buffer.from('abc')]);
  await assert.rejects(read(pieces(data.subarray(0, data.length - 2), 4)), /ended before its trailer/);
  await assert.rejects(read(pieces(Buffer.concat([Buffer.from('X'), data]), 4)), /signature/);
});
