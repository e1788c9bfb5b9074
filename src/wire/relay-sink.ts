/**
 * The MySQL face's end of the result relay (SqlEngine.relay): a plain SELECT pushed down
 * whole to a MySQL or MariaDB source has its row packets written to the client as the source
 * sent them, renumbered for this connection, instead of decoded by mysql2 and encoded again
 * (issue 16: that round trip was most of a point lookup's cost). The column definitions and
 * the final EOF are this face's own, written exactly as the normal path writes them, so a
 * client sees the same bytes either way; the source decides which column types qualify
 * (sources/mysql/relay.ts). For a prepared statement (COM_STMT_EXECUTE) each row is rewritten
 * in the binary protocol from its text cells, as the normal path writes the decoded values
 * (columns.ts writeBinaryRowFromText).
 */
import type { Socket } from 'node:net';
import type { FieldInfo } from '../core/types.js';
import type { ResultPacketSink } from '../sql/engine-types.js';
import {
  clampDecimals,
  columnDecimals,
  type WireColumn,
  wireColumns,
  writeBinaryRowFromText,
  writeColumnDef,
} from './columns.js';
import { lenencAt, lenencSize, PacketIn, type PacketOut } from './packets.js';
import { writeEof } from './replies.js';

/** Bytes gathered before a write to the socket (as the normal path's FLUSH_BYTES). */
const FLUSH_BYTES = 64 * 1024;

/** Types whose column definition reads the values (decimals: DECIMAL scale, fractional seconds). */
const SAMPLED = new Set(['DECIMAL', 'TIME', 'DATETIME', 'TIMESTAMP']);

/** The column definitions last written for a result's columns (SqlEngine.relay hands one array per shape). */
const HEADS = new WeakMap<
  FieldInfo[],
  { seq: number; schema: string; decimals: number[]; bytes: Buffer; nextSeq: number; cols: WireColumn[] }
>();

export class RelaySink implements ResultPacketSink {
  private columns: FieldInfo[] | null = null;
  /**
   * Rows held until the column definitions are written: the normal path writes them after
   * its first batch, taking DECIMAL scales and fractional seconds from its values, and so
   * does this, from the rows of the first write.
   */
  private held: Buffer[] = [];
  private heldBytes = 0;
  private headWritten = false;
  private resume: (() => void) | null = null;
  /** The columns as written (binary rows are encoded per their types). */
  private cols: WireColumn[] = [];

  constructor(
    private readonly out: PacketOut,
    private readonly socket: Socket,
    private readonly schema: string,
    private readonly closed: () => boolean,
    /** COM_STMT_EXECUTE: each text row the source sends goes out in the binary protocol. */
    private readonly binary = false,
  ) {}

  head(columns: FieldInfo[], resume: () => void): void {
    this.columns = columns;
    this.resume = resume;
  }

  row(buf: Buffer, start: number, end: number): boolean {
    // A client gone: the statement is being cancelled; its last rows go nowhere.
    if (this.closed()) return true;
    if (!this.headWritten) {
      const copy = Buffer.allocUnsafe(end - start);
      buf.copy(copy, 0, start, end);
      this.held.push(copy);
      this.heldBytes += copy.length;
      if (this.heldBytes < FLUSH_BYTES) return true;
      this.writeHead();
    } else {
      if (this.binary) writeBinaryRowFromText(this.out, this.cols, buf, start, end);
      else this.out.begin().range(buf, start, end).end();
      if (this.out.length < FLUSH_BYTES) return true;
    }
    return this.flush();
  }

  /** The result ended well: what is held, then the EOF (the session writes it out). */
  end(): void {
    if (!this.headWritten) this.writeHead();
    writeEof(this.out);
  }

  /** Whether anything of the result is already in the output (an error then follows the rows). */
  get started(): boolean {
    return this.headWritten;
  }

  private writeHead(): void {
    const fields = this.columns ?? [];
    const decimals = heldDecimals(fields, this.held);
    // The same columns (one array per statement shape, from the source's memo) with the same
    // decimals give the same bytes: copied, not encoded again (a tenth of a lookup's JS).
    const memo = HEADS.get(fields);
    if (
      memo &&
      memo.seq === this.out.seq &&
      memo.schema === this.schema &&
      memo.decimals.every((d, i) => d === decimals[i])
    ) {
      this.out.bytes(memo.bytes);
      this.out.seq = memo.nextSeq;
      this.cols = memo.cols;
    } else {
      const start = this.out.length;
      const seq = this.out.seq;
      const sample = fields.some((f) => SAMPLED.has(f.type)) ? sampleRows(fields, this.held) : [];
      const cols = wireColumns(fields, sample);
      this.out.begin().lenenc(cols.length).end();
      for (const c of cols) writeColumnDef(this.out, c, this.schema);
      writeEof(this.out);
      HEADS.set(fields, {
        seq,
        schema: this.schema,
        decimals,
        bytes: this.out.copySince(start),
        nextSeq: this.out.seq,
        cols,
      });
      this.cols = cols;
    }
    for (const r of this.held)
      if (this.binary) writeBinaryRowFromText(this.out, this.cols, r, 0, r.length);
      else this.out.begin().bytes(r).end();
    this.held = [];
    this.headWritten = true;
  }

  /** Out to the socket; false (the source pauses) until it drains. */
  private flush(): boolean {
    if (this.socket.write(this.out.take())) return true;
    const go = () => {
      this.socket.off('drain', go);
      this.socket.off('close', go);
      this.resume?.();
    };
    this.socket.on('drain', go);
    this.socket.on('close', go);
    return false;
  }
}

/**
 * Each column's decimals as columnDecimals reads them from `sampleRows(fields, rows)`, read
 * from the row bytes in place: a point lookup's head is usually the memoized one, and
 * decoding its row to compare cost a twentieth of the statement's allocations.
 */
export function heldDecimals(fields: FieldInfo[], rows: Buffer[]): number[] {
  const out = new Array<number>(fields.length);
  let sampled = false;
  for (let i = 0; i < fields.length; i++) {
    out[i] = SAMPLED.has(fields[i].type) ? -1 : columnDecimals(fields[i], i, []);
    if (out[i] < 0) sampled = true;
  }
  if (sampled) {
    const digits = new Array<number>(fields.length).fill(0);
    for (const r of rows) {
      let pos = 0;
      for (let i = 0; i < fields.length && pos < r.length; i++) {
        const b = r[pos];
        // 0xfb: a NULL cell; else a length-encoded length, then the text.
        if (b === 0xfb) {
          pos++;
          continue;
        }
        const len = lenencAt(r, pos);
        pos += lenencSize(b);
        const end = Math.min(pos + len, r.length);
        if (out[i] < 0) {
          let dot = end - 1;
          while (dot >= pos && r[dot] !== 0x2e) dot--;
          if (dot >= pos && end - dot - 1 > digits[i]) digits[i] = end - dot - 1;
        }
        pos = end;
      }
    }
    for (let i = 0; i < fields.length; i++) if (out[i] < 0) out[i] = clampDecimals(fields[i], digits[i]);
  }
  return out;
}

/** The text of the sampled columns' cells (others null), as the normal path's first batch holds them. */
export function sampleRows(fields: FieldInfo[], rows: Buffer[]): unknown[][] {
  const want = fields.map((f) => SAMPLED.has(f.type));
  return rows.map((r) => {
    const cells: unknown[] = new Array(fields.length).fill(null);
    const p = new PacketIn(r);
    for (let i = 0; i < fields.length && p.left > 0; i++) {
      // 0xfb is a NULL cell in a text-protocol row.
      if (p.buf[p.pos] === 0xfb) {
        p.pos++;
        continue;
      }
      const cell = p.lenencBytes();
      if (want[i]) cells[i] = cell.toString('latin1');
    }
    return cells;
  });
}
