/**
 * COPY ... TO STDOUT read with less work per row than pg-copy-streams does.
 *
 * PostgreSQL sends one CopyData message per row. pg-copy-streams (kept: it owns taking the
 * connection over from `pg` and handing it back) cuts each message out as a Buffer of its
 * own and joins them again: for 1,000,000 rows of two short columns that is about 190 ms of
 * the event loop, as much CPU as PostgreSQL spends writing them, and in a cross-source
 * statement the loop is also what feeds the other fragments. This subclass replaces only
 * the message parser: the payloads of a socket read are copied into one buffer by a plain
 * loop (85-95 ms for the same rows; the bytes out are identical). Anything but CopyData and
 * the messages that may interleave ends the copy and goes back to `pg` unread, as in the
 * base class: an ErrorResponse before it is consumed (so `pg` reports it), the rest after
 * CopyDone.
 */
import { to as copyTo } from 'pg-copy-streams';

const COPY_DATA = 0x64; // 'd'
const COPY_OUT_RESPONSE = 0x48; // 'H'
const ERROR_RESPONSE = 0x45; // 'E'
/** Messages the server may send in the middle of a copy (protocol-flow.html#PROTOCOL-COPY). */
const INTERLEAVED = new Set([
  COPY_OUT_RESPONSE,
  0x53 /* ParameterStatus */,
  0x4e /* Notice */,
  0x41 /* Notification */,
]);

type CopyToStream = ReturnType<typeof copyTo>;

/** What the base class keeps that a parser must use: its unread buffer and hand-back. */
interface BaseInternals {
  _buffer: { push(b: Buffer): void };
  _detach(): void;
  _cleanup(): void;
  push(chunk: Buffer | null): boolean;
}

// The base class is not exported by name; its instances carry it.
const Base = Object.getPrototypeOf(copyTo('')).constructor as new (text: string) => CopyToStream;

class FastCopyTo extends Base {
  /** Bytes of a message header or of a non-data message cut by the end of a read. */
  private rest: Buffer | null = null;
  /** Bytes of a CopyData payload still to come in the next read. */
  private need = 0;

  /** Called by the base class with each socket read; true while the reader wants more. */
  _parse(chunk: Buffer): boolean {
    const self = this as unknown as BaseInternals;
    let buf = chunk;
    if (this.rest) {
      buf = Buffer.concat([this.rest, chunk]);
      this.rest = null;
    }
    const end = buf.length;
    const out = Buffer.allocUnsafe(end);
    let o = 0;
    let pos = 0;
    let done = false;
    if (this.need > 0) {
      const n = Math.min(this.need, end);
      for (let i = 0; i < n; i++) out[o++] = buf[i];
      this.need -= n;
      pos = n;
    }
    while (pos < end && this.need === 0) {
      if (end - pos < 5) {
        this.rest = buf.subarray(pos);
        pos = end;
        break;
      }
      const code = buf[pos];
      if (code === ERROR_RESPONSE) {
        self._buffer.push(buf.subarray(pos));
        if (o > 0) self.push(out.subarray(0, o));
        self._detach();
        return false;
      }
      const body =
        (((buf[pos + 1] << 24) | (buf[pos + 2] << 16) | (buf[pos + 3] << 8) | buf[pos + 4]) >>> 0) - 4;
      if (code === COPY_DATA) {
        const start = pos + 5;
        const avail = Math.min(body, end - start);
        for (let i = 0; i < avail; i++) out[o++] = buf[start + i];
        pos = start + avail;
        this.need = body - avail;
        continue;
      }
      if (end - pos < 5 + body) {
        this.rest = buf.subarray(pos);
        pos = end;
        break;
      }
      pos += 5 + body;
      if (INTERLEAVED.has(code)) continue;
      done = true; // CopyDone: what follows (CommandComplete, ReadyForQuery) is pg's
      break;
    }
    const drained = o > 0 ? self.push(out.subarray(0, o)) : true;
    if (done) {
      if (pos < end) self._buffer.push(buf.subarray(pos));
      self._detach();
      self.push(null);
      self._cleanup();
    }
    return drained;
  }
}

/** `COPY ... TO STDOUT` as a stream of the bytes PostgreSQL wrote, for `client.query()`. */
export function copyOut(sql: string): CopyToStream {
  return new FastCopyTo(sql);
}
