import { createWriteStream } from 'node:fs';
import { rm } from 'node:fs/promises';
import { Transform } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { FileError } from './errors.js';

export interface Received {
  bytes: number;
  /** The first bytes, to sniff the format without re-reading the file. */
  head: Buffer;
}

const HEAD = 4096;

export function tooLarge(maxBytes: number): FileError {
  return new FileError(
    413,
    'request_too_large',
    `The upload is larger than the limit of ${maxBytes} bytes (files.max_upload_bytes)`,
  );
}

/**
 * Write an upload to `path` with backpressure, so a 1 GB file never sits in memory,
 * and stop at `maxBytes`. On any failure the partial file is removed.
 */
export async function receiveToFile(
  body: NodeJS.ReadableStream,
  path: string,
  maxBytes: number,
): Promise<Received> {
  let bytes = 0;
  const headParts: Buffer[] = [];
  let headLen = 0;
  const meter = new Transform({
    highWaterMark: 1 << 20,
    transform(chunk: Buffer, _enc, cb) {
      bytes += chunk.length;
      if (bytes > maxBytes) return cb(tooLarge(maxBytes));
      if (headLen < HEAD) {
        headParts.push(chunk.subarray(0, HEAD - headLen));
        headLen += Math.min(chunk.length, HEAD - headLen);
      }
      cb(null, chunk);
    },
  });
  try {
    await pipeline(
      body,
      meter,
      createWriteStream(path, { flags: 'wx', mode: 0o600, highWaterMark: 1 << 20 }),
    );
  } catch (e) {
    await rm(path, { force: true });
    throw e;
  }
  return { bytes, head: Buffer.concat(headParts) };
}
