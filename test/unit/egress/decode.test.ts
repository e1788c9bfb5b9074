import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { brotliCompressSync, deflateRawSync, deflateSync, gzipSync } from 'node:zlib';
import { contentCodings, decodeBody } from '../../../src/egress/decode.js';
import { EgressError } from '../../../src/egress/errors.js';

const text = Buffer.from('hello '.repeat(1000));

async function rejectsWith(p: Promise<unknown>, code: string) {
  await assert.rejects(p, (e: unknown) => e instanceof EgressError && e.errorCode === code);
}

describe('content decoding', () => {
  test('parses Content-Encoding lists, identity dropped', () => {
    assert.deepEqual(contentCodings(undefined), []);
    assert.deepEqual(contentCodings('identity'), []);
    assert.deepEqual(contentCodings('GZIP'), ['gzip']);
    assert.deepEqual(contentCodings('deflate, br'), ['deflate', 'br']);
  });
  test('gzip, x-gzip, deflate (zlib and raw) and br decode', async () => {
    assert.deepEqual(await decodeBody(gzipSync(text), ['gzip'], 1e6, 'h'), text);
    assert.deepEqual(await decodeBody(gzipSync(text), ['x-gzip'], 1e6, 'h'), text);
    assert.deepEqual(await decodeBody(deflateSync(text), ['deflate'], 1e6, 'h'), text);
    assert.deepEqual(await decodeBody(deflateRawSync(text), ['deflate'], 1e6, 'h'), text);
    assert.deepEqual(await decodeBody(brotliCompressSync(text), ['br'], 1e6, 'h'), text);
    // Layers are undone in reverse order of application.
    assert.deepEqual(await decodeBody(brotliCompressSync(gzipSync(text)), ['gzip', 'br'], 1e6, 'h'), text);
  });
  test('the decoded size is bounded: exactly the limit passes, one more byte fails', async () => {
    assert.equal((await decodeBody(gzipSync(text), ['gzip'], text.length, 'h')).length, text.length);
    await rejectsWith(decodeBody(gzipSync(text), ['gzip'], text.length - 1, 'h'), 'response_too_large');
  });
  test('a gzip bomb stops at the limit', async () => {
    const bomb = gzipSync(Buffer.alloc(64 * 1024 * 1024));
    assert.ok(bomb.length < 100_000);
    await rejectsWith(decodeBody(bomb, ['gzip'], 1024 * 1024, 'h'), 'response_too_large');
    await rejectsWith(
      decodeBody(brotliCompressSync(Buffer.alloc(8 * 1024 * 1024)), ['br'], 1024, 'h'),
      'response_too_large',
    );
  });
  test('corrupt, truncated or unknown encodings are invalid upstream responses', async () => {
    await rejectsWith(decodeBody(Buffer.from('not gzip'), ['gzip'], 1e6, 'h'), 'invalid_upstream_response');
    const gz = gzipSync(text);
    await rejectsWith(
      decodeBody(gz.subarray(0, gz.length - 10), ['gzip'], 1e6, 'h'),
      'invalid_upstream_response',
    );
    await rejectsWith(decodeBody(text, ['zstd'], 1e6, 'h'), 'invalid_upstream_response');
    await rejectsWith(
      decodeBody(text, ['gzip', 'gzip', 'gzip', 'gzip'], 1e6, 'h'),
      'invalid_upstream_response',
    );
  });
});
