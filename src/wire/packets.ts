/**
 * MySQL client/server protocol framing and primitive codecs: a packet is a 3-byte length, a
 * sequence id and a payload; payloads of 2^24-1 bytes or more continue in the next packet.
 * Written by hand: mysql2's server side (the only maintained JavaScript one) keeps these inside
 * its client connection class, not exported, with no TLS upgrade, auth switch or binary rows.
 */

export const MAX_PAYLOAD = 0xffffff;

/**
 * An output buffer of whole packets. `begin` opens a packet, the write methods fill its
 * payload, `end` frames it with the next sequence id; `take` hands the bytes to the socket.
 * Rows of a large result are written into one buffer and flushed in chunks.
 */
export class PacketOut {
  seq = 0;
  /**
   * The server status flags OK and EOF packets carry (replies.ts): autocommit (0x0002) and
   * in-transaction (0x0001), kept true by the connection's transaction (wire/transaction.ts).
   */
  status = 0x0002;
  private buf: Buffer;
  private pos = 0;
  private start = -1;

  constructor(size = 16 * 1024) {
    this.buf = Buffer.allocUnsafe(size);
  }

  get length(): number {
    return this.pos;
  }

  private room(n: number): void {
    if (this.pos + n <= this.buf.length) return;
    let size = this.buf.length * 2;
    while (size < this.pos + n) size *= 2;
    const next = Buffer.allocUnsafe(size);
    this.buf.copy(next, 0, 0, this.pos);
    this.buf = next;
  }

  begin(): this {
    this.room(4);
    this.start = this.pos;
    this.pos += 4;
    return this;
  }

  end(): void {
    const len = this.pos - this.start - 4;
    if (len < MAX_PAYLOAD) {
      this.buf.writeUIntLE(len, this.start, 3);
      this.buf[this.start + 3] = this.seq;
      this.seq = (this.seq + 1) & 0xff;
      this.start = -1;
      return;
    }
    // Rare (a value of 16 MiB): re-frame the payload as a chain of packets.
    const payload = Buffer.from(this.buf.subarray(this.start + 4, this.pos));
    this.pos = this.start;
    let off = 0;
    for (;;) {
      const n = Math.min(MAX_PAYLOAD, payload.length - off);
      this.room(4 + n);
      this.buf.writeUIntLE(n, this.pos, 3);
      this.buf[this.pos + 3] = this.seq;
      this.seq = (this.seq + 1) & 0xff;
      payload.copy(this.buf, this.pos + 4, off, off + n);
      this.pos += 4 + n;
      off += n;
      if (n < MAX_PAYLOAD) break;
    }
    this.start = -1;
  }

  /** A copy of the framed bytes written since `length` was `start` (a column-definition memo). */
  copySince(start: number): Buffer {
    return Buffer.from(this.buf.subarray(start, this.pos));
  }

  /** The framed bytes so far (a copy), leaving the buffer empty. */
  take(): Buffer {
    const out = Buffer.from(this.buf.subarray(0, this.pos));
    this.pos = 0;
    return out;
  }

  int1(v: number): this {
    this.room(1);
    this.buf[this.pos++] = v & 0xff;
    return this;
  }

  int2(v: number): this {
    this.room(2);
    this.buf.writeUInt16LE(v & 0xffff, this.pos);
    this.pos += 2;
    return this;
  }

  int3(v: number): this {
    this.room(3);
    this.buf.writeUIntLE(v & 0xffffff, this.pos, 3);
    this.pos += 3;
    return this;
  }

  int4(v: number): this {
    this.room(4);
    this.buf.writeUInt32LE(v >>> 0, this.pos);
    this.pos += 4;
    return this;
  }

  int8(v: bigint): this {
    this.room(8);
    this.buf.writeBigUInt64LE(BigInt.asUintN(64, v), this.pos);
    this.pos += 8;
    return this;
  }

  float(v: number): this {
    this.room(4);
    this.buf.writeFloatLE(v, this.pos);
    this.pos += 4;
    return this;
  }

  double(v: number): this {
    this.room(8);
    this.buf.writeDoubleLE(v, this.pos);
    this.pos += 8;
    return this;
  }

  /** A length-encoded integer. */
  lenenc(n: number): this {
    if (n < 251) return this.int1(n);
    if (n < 0x10000) return this.int1(0xfc).int2(n);
    if (n < 0x1000000) return this.int1(0xfd).int3(n);
    return this.int1(0xfe).int8(BigInt(n));
  }

  bytes(b: Uint8Array): this {
    this.room(b.length);
    this.buf.set(b, this.pos);
    this.pos += b.length;
    return this;
  }

  /** The bytes `b[start..end)`, copied without a view in between (relayed rows). */
  range(b: Buffer, start: number, end: number): this {
    this.room(end - start);
    b.copy(this.buf, this.pos, start, end);
    this.pos += end - start;
    return this;
  }

  /** UTF-8 text without a length (the rest of a packet, or before a NUL). */
  text(s: string): this {
    const max = s.length * 3;
    this.room(max);
    this.pos += this.buf.write(s, this.pos, max, 'utf8');
    return this;
  }

  nulText(s: string): this {
    return this.text(s).int1(0);
  }

  /** A length-encoded string: the length is known only after encoding, so short text is written in place. */
  lenencText(s: string): this {
    if (s.length < 84) {
      // At most 251 bytes once encoded: a one-byte length, patched after writing.
      this.room(1 + s.length * 3);
      const at = this.pos++;
      const n = this.buf.write(s, this.pos, s.length * 3, 'utf8');
      if (n < 251) {
        this.buf[at] = n;
        this.pos += n;
        return this;
      }
      this.pos = at;
    }
    return this.lenencBytes(Buffer.from(s, 'utf8'));
  }

  lenencBytes(b: Uint8Array): this {
    return this.lenenc(b.length).bytes(b);
  }

  /** Reserve `n` zero bytes and return their offset (a NULL bitmap filled in later). */
  reserve(n: number): number {
    this.room(n);
    const at = this.pos;
    this.buf.fill(0, at, at + n);
    this.pos += n;
    return at;
  }

  setBit(at: number, bit: number): void {
    this.buf[at + (bit >> 3)] |= 1 << (bit & 7);
  }
}

/** Reads one payload; every read checks bounds and throws MalformedPacket past the end. */
/** Bytes a length-encoded integer takes, from its first byte (a text row's cell header). */
export function lenencSize(first: number): number {
  return first === 0xfc ? 3 : first === 0xfd ? 4 : first === 0xfe ? 9 : 1;
}

/** The length-encoded integer at `pos`, read in place (a text row's cell length; 0xfb, NULL, is the caller's). */
export function lenencAt(b: Buffer, pos: number): number {
  const first = b[pos];
  if (first === 0xfc) return b.readUInt16LE(pos + 1);
  if (first === 0xfd) return b.readUIntLE(pos + 1, 3);
  if (first === 0xfe) return Number(b.readBigUInt64LE(pos + 1));
  return first;
}

export class PacketIn {
  pos = 0;
  constructor(readonly buf: Buffer) {}

  get left(): number {
    return this.buf.length - this.pos;
  }

  private need(n: number): void {
    if (this.pos + n > this.buf.length) throw new MalformedPacket();
  }

  int1(): number {
    this.need(1);
    return this.buf[this.pos++];
  }

  int2(): number {
    this.need(2);
    const v = this.buf.readUInt16LE(this.pos);
    this.pos += 2;
    return v;
  }

  int4(): number {
    this.need(4);
    const v = this.buf.readUInt32LE(this.pos);
    this.pos += 4;
    return v;
  }

  int8(): bigint {
    this.need(8);
    const v = this.buf.readBigUInt64LE(this.pos);
    this.pos += 8;
    return v;
  }

  lenenc(): number {
    const b = this.int1();
    if (b < 0xfb) return b;
    if (b === 0xfc) return this.int2();
    if (b === 0xfd) {
      this.need(3);
      const v = this.buf.readUIntLE(this.pos, 3);
      this.pos += 3;
      return v;
    }
    if (b === 0xfe) {
      const v = this.int8();
      if (v > BigInt(this.buf.length)) throw new MalformedPacket();
      return Number(v);
    }
    throw new MalformedPacket();
  }

  bytes(n: number): Buffer {
    this.need(n);
    const b = this.buf.subarray(this.pos, this.pos + n);
    this.pos += n;
    return b;
  }

  lenencBytes(): Buffer {
    return this.bytes(this.lenenc());
  }

  nulBytes(): Buffer {
    const end = this.buf.indexOf(0, this.pos);
    if (end < 0) throw new MalformedPacket();
    const b = this.buf.subarray(this.pos, end);
    this.pos = end + 1;
    return b;
  }

  rest(): Buffer {
    const b = this.buf.subarray(this.pos);
    this.pos = this.buf.length;
    return b;
  }
}

export class MalformedPacket extends Error {
  constructor() {
    super('malformed packet');
  }
}

export class PacketTooLarge extends Error {
  constructor(readonly limit: number) {
    super(`Got a packet bigger than 'max_allowed_packet' bytes (${limit})`);
  }
}

/**
 * Cuts a byte stream into payloads (joining continued ones). A payload above `maxPayload`
 * is refused before it is buffered, so a client cannot make the server hold it.
 */
export class PacketParser {
  private chunks: Buffer[] = [];
  private have = 0;
  private parts: Buffer[] = [];
  private partsLen = 0;

  constructor(
    private readonly maxPayload: number,
    private readonly onPacket: (payload: Buffer, seq: number) => boolean,
  ) {}

  /**
   * Feed bytes. Stops early when `onPacket` returns false (the connection switches to TLS);
   * then the bytes not yet consumed are returned (maybe none) so the new reader gets them;
   * null when every byte was consumed.
   */
  push(chunk: Buffer): Buffer | null {
    this.chunks.push(chunk);
    this.have += chunk.length;
    for (;;) {
      if (this.have < 4) return null;
      const head = this.peek(4);
      const len = head.readUIntLE(0, 3);
      const seq = head[3];
      if (this.partsLen + len > this.maxPayload) throw new PacketTooLarge(this.maxPayload);
      if (this.have < 4 + len) return null;
      this.skip(4);
      const body = this.read(len);
      if (len === MAX_PAYLOAD) {
        this.parts.push(body);
        this.partsLen += len;
        continue;
      }
      let payload = body;
      if (this.parts.length) {
        this.parts.push(body);
        payload = Buffer.concat(this.parts);
        this.parts = [];
        this.partsLen = 0;
      }
      if (!this.onPacket(payload, seq)) {
        const left = Buffer.concat(this.chunks);
        this.chunks = [];
        this.have = 0;
        return left;
      }
    }
  }

  private peek(n: number): Buffer {
    if (this.chunks[0].length >= n) return this.chunks[0];
    const whole = Buffer.concat(this.chunks);
    this.chunks = [whole];
    return whole;
  }

  private skip(n: number): void {
    this.read(n);
  }

  private read(n: number): Buffer {
    // An empty packet (a client's empty auth answer) may end the bytes read so far.
    if (n === 0) return Buffer.alloc(0);
    const first = this.chunks[0];
    if (first.length >= n) {
      const out = first.subarray(0, n);
      if (first.length === n) this.chunks.shift();
      else this.chunks[0] = first.subarray(n);
      this.have -= n;
      return out;
    }
    const whole = Buffer.concat(this.chunks);
    this.chunks = whole.length > n ? [whole.subarray(n)] : [];
    this.have -= n;
    return whole.subarray(0, n);
  }
}
