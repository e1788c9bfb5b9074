import { brotliDecompress, gunzip, type InputType, inflate, inflateRaw, type ZlibOptions } from 'node:zlib';
import { EgressError } from './errors.js';

/**
 * Content decoding with an output bound. We ask upstreams for `identity`, but some compress
 * anyway; the limit applies to the decoded size, so a small gzip bomb stops at the limit
 * (zlib's maxOutputLength aborts inflation there instead of allocating the whole output).
 */

type Decoder = (buf: InputType, opts: ZlibOptions, cb: (err: Error | null, out: Buffer) => void) => void;

const MAX_LAYERS = 3;

function pick(encoding: string, data: Buffer): Decoder | null {
  switch (encoding) {
    case 'gzip':
    case 'x-gzip':
      return gunzip as Decoder;
    case 'deflate': {
      // "deflate" is meant to be zlib-wrapped (RFC 9110), but some servers send raw deflate.
      const zlibHeader =
        data.length >= 2 && (data[0]! & 0x0f) === 8 && ((data[0]! << 8) | data[1]!) % 31 === 0;
      return (zlibHeader ? inflate : inflateRaw) as Decoder;
    }
    case 'br':
      return brotliDecompress as Decoder;
    default:
      return null;
  }
}

function run(decoder: Decoder, data: Buffer, maxBytes: number): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    decoder(data, { maxOutputLength: Math.max(1, maxBytes) }, (err, out) =>
      err ? reject(err) : resolve(out),
    );
  });
}

/** Parses a Content-Encoding header into the codings applied, in order; identity dropped. */
export function contentCodings(header: string | string[] | undefined): string[] {
  if (header === undefined) return [];
  const joined = Array.isArray(header) ? header.join(',') : header;
  return joined
    .split(',')
    .map((s) => s.trim().toLowerCase())
    .filter((s) => s !== '' && s !== 'identity');
}

export async function decodeBody(
  data: Buffer,
  codings: string[],
  maxBytes: number,
  host: string,
): Promise<Buffer> {
  if (codings.length === 0) return data;
  if (codings.length > MAX_LAYERS) {
    throw new EgressError(
      'invalid_upstream_response',
      `the response from '${host}' has too many content encodings`,
    );
  }
  let out = data;
  for (const coding of [...codings].reverse()) {
    const decoder = pick(coding, out);
    if (!decoder) {
      throw new EgressError(
        'invalid_upstream_response',
        `the response from '${host}' uses content-encoding '${coding.slice(0, 32)}', which cannot be decoded`,
      );
    }
    try {
      out = await run(decoder, out, maxBytes);
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code === 'ERR_BUFFER_TOO_LARGE') {
        throw new EgressError(
          'response_too_large',
          `the response from '${host}' is larger than ${maxBytes} bytes after decompression`,
        );
      }
      throw new EgressError(
        'invalid_upstream_response',
        `the ${coding} body from '${host}' could not be decoded`,
      );
    }
  }
  return out;
}
