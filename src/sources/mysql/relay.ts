/**
 * A COM_QUERY whose result rows go to a sink as the server sent them (Source.relayQuery), for
 * the MySQL wire face: decoding rows with mysql2 and encoding them again was most of a point
 * lookup's cost through the listener (issue 16). Hand-written as a mysql2 Command because no
 * library relays a result's packets: mysql2's Query always parses rows, and its server side
 * has no pool of source connections.
 *
 * Pinned on mysql2 3.24.6's internals (package-lock.json): `Connection.addCommand` queues a
 * command; `handlePacket` feeds it each Packet (`buffer`, `start` at the 4-byte header,
 * `end`), one Packet object reused for every packet, so nothing is kept past the call; the
 * base `Command.execute` turns an ERR packet into an 'error' event before a state runs; and
 * `pause()`/`resume()` hold parsed packets while a slow client drains. mysql2 never asks for
 * CLIENT_DEPRECATE_EOF, so the column definitions and the rows each end with an EOF packet.
 */
import type { EventEmitter } from 'node:events';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import type { FieldInfo } from '../../core/types.js';
import type { ResultPacketSink } from '../types.js';
import { fieldInfoOf, T } from './types.js';

const require = createRequire(import.meta.url);
// mysql2's package exports hide lib/; a file path is not subject to them.
const lib = join(dirname(require.resolve('mysql2')), 'lib');
const Command = require(join(lib, 'commands/command.js')) as new () => EventEmitter;
const Packets = require(join(lib, 'packets/index.js')) as {
  Query: new (
    sql: string,
    charset: number,
    attributes: undefined,
    flags: number,
  ) => { toPacket(seq: number): { writeHeader(seq: number): void; buffer: Buffer } };
  ColumnDefinition: new (p: RawPacket, encoding: string, extended: boolean) => RawField;
};

interface RawPacket {
  buffer: Buffer;
  start: number;
  end: number;
  readLengthCodedNumber(): number | null;
}

/** The parts of a mysql2 connection a command sees (lib/base/connection.js). */
export interface RawConnection {
  config: { charsetNumber: number; clientFlags: number };
  serverCapabilityFlags?: number;
  clientEncoding: string;
  _mariadbExtendedMetadata?: boolean;
  writePacket(p: unknown): void;
  pause(): void;
  resume(): void;
  addCommand(c: unknown): unknown;
}

interface RawField {
  name: string;
  columnType: number;
  characterSet: number;
  columnLength: number;
  flags: number;
  decimals: number;
  extendedTypeName?: string;
  extendedFormat?: string;
  /** Where the column comes from (mysql2 decodes these on first read). */
  table?: string;
  orgTable?: string;
  orgName?: string;
}

type State = ((this: RelayCommand, p: RawPacket, c: RawConnection) => State | null) | null;

const LONGTEXT_LENGTH = 4294967295;
/**
 * What a pipelined result may put in the client socket's buffer beyond its high-water mark
 * before the shared connection pauses: a client that does not read then holds up the others
 * only after this much (the sink adds a 'drain' listener per 64 KiB, 8 here).
 */
const PIPELINED_UNPAUSED_BYTES = 512 * 1024;
const BINARY_CHARSET = 63;

/**
 * Whether the normal path would send a column's values as the very bytes the source sent:
 * integers, DECIMAL, dates and times (as text), strings and byte strings. Not FLOAT and
 * DOUBLE (JS number formatting), BIT (bytes become a number), JSON and MariaDB's LONGTEXT
 * (a JSON column is re-serialised), GEOMETRY, types of MariaDB's extended metadata.
 */
export function relayable(f: RawField): boolean {
  if (f.extendedTypeName || f.extendedFormat) return false;
  switch (f.columnType) {
    case T.TINY:
    case T.SHORT:
    case T.LONG:
    case T.INT24:
    case T.LONGLONG:
    case T.YEAR:
    case T.NEWDECIMAL:
    case T.DATE:
    case T.DATETIME:
    case T.TIMESTAMP:
    case T.TIME:
    case T.VARCHAR:
    case T.VAR_STRING:
    case T.STRING:
      return true;
    case T.TINY_BLOB:
    case T.MEDIUM_BLOB:
    case T.LONG_BLOB:
    case T.BLOB:
      return f.characterSet === BINARY_CHARSET || f.columnLength !== LONGTEXT_LENGTH;
    default:
      return false;
  }
}

/** A COM_QUERY packet of `sql` for connection `c`, framed with sequence id 0 (pipeline.ts writes several at once). */
export function queryPacketBytes(c: RawConnection, sql: string): Buffer {
  const flags = c.config.clientFlags & (c.serverCapabilityFlags ?? 0);
  const p = new Packets.Query(sql, c.config.charsetNumber, undefined, flags).toPacket(1);
  p.writeHeader(0);
  return p.buffer;
}

/**
 * The column definitions a statement shape's result had last time, by their packets' bytes:
 * when the next result's are the same bytes, its columns are the same objects (not parsed,
 * and the wire face's encoded column definitions are reused: relay-sink.ts keys on them).
 */
export class ColumnsMemo {
  /** `schema`: the source's name, which the columns' origins carry. */
  constructor(readonly schema?: string) {}

  /** Replaced whole, never changed: a statement compares against the one it started with. */
  last: { raw: Buffer[]; fields: RawField[]; columns: FieldInfo[]; relayable: boolean } | null = null;
}

/** mysql2 ends a connection without an error when the server closes it: this is the one to report. */
export function connectionLost(): Error {
  return Object.assign(new Error('Connection lost'), { fatal: true });
}

/** How a relayed statement ended. */
export type RelayEnd = { rows: number } | { declined: true } | { error: unknown };

export class RelayCommand extends Command {
  private fields: RawField[] = [];
  /** The column-definition packets as they came (when there is a memo to refresh). */
  private raw: Buffer[] = [];
  /** Whether every column so far came as the memo has it. */
  private same = false;
  private last: ColumnsMemo['last'] = null;
  private count = 0;
  private rows = 0;
  private ended = false;
  private stopped = false;
  /** Bytes relayed past the sink's first "slow down" without pausing (pipelined only). */
  private unpaused = 0;
  /** Whether the sink has the columns (from then on the statement cannot be run again). */
  headed = false;
  // Read by Command.execute (err.sql) and by mysql2's debug output.
  readonly sql: string;

  constructor(
    sql: string,
    private readonly sink: ResultPacketSink,
    private readonly done: (end: RelayEnd) => void,
    /**
     * Pipelined (pipeline.ts): the statement was written already, with others, and the
     * packets after this result belong to the next statement, so a declined result is read
     * to its end instead of left for the connection to be destroyed. `began` is told when
     * the server starts on it (its result is next on the connection).
     */
    private readonly pipelined: { began(): void } | null = null,
    /** The columns of this statement's shape last time: equal bytes reuse them, unparsed. */
    private readonly memo: ColumnsMemo | null = null,
  ) {
    super();
    this.sql = sql;
  }

  /** Called by mysql2 for an ERR packet, and for a connection that failed or was closed. */
  onResult(e: unknown): void {
    this.finish({ error: e });
  }

  /** A cancelled statement's remaining rows are read and dropped until the server's ERR. */
  stop(c: RawConnection): void {
    this.stopped = true;
    c.resume();
  }

  private finish(end: RelayEnd): null {
    if (!this.ended) {
      this.ended = true;
      this.done(end);
    }
    return null;
  }

  start(_p: RawPacket | undefined, c: RawConnection): State {
    if (this.pipelined) {
      // As if written now: the server answers a COM_QUERY from sequence id 1.
      (c as unknown as { sequenceId: number }).sequenceId = 1;
      this.pipelined.began();
      return this.header;
    }
    const flags = c.config.clientFlags & (c.serverCapabilityFlags ?? 0);
    c.writePacket(new Packets.Query(this.sql, c.config.charsetNumber, undefined, flags).toPacket(1));
    return this.header;
  }

  header(p: RawPacket): State {
    const first = p.buffer[p.start + 4];
    // 0x00: OK, no result set; 0xfb: LOCAL INFILE. A SELECT answers neither.
    if (first === 0x00 || first === 0xfb) return this.finish({ error: new Error('Expected a result set') });
    this.count = p.readLengthCodedNumber() ?? 0;
    this.last = this.memo?.last ?? null;
    this.same = this.last !== null && this.last.raw.length === this.count;
    return this.field;
  }

  field(p: RawPacket, c: RawConnection): State {
    const i = this.fields.length;
    const m = this.last;
    const len = p.end - p.start - 4;
    if (
      this.same &&
      m &&
      m.raw[i].length === len &&
      p.buffer.compare(m.raw[i], 0, len, p.start + 4, p.end) === 0
    ) {
      this.fields.push(m.fields[i]);
      this.raw.push(m.raw[i]);
    } else {
      this.same = false;
      this.fields.push(
        new Packets.ColumnDefinition(p, c.clientEncoding, c._mariadbExtendedMetadata === true),
      );
      if (this.memo) this.raw.push(Buffer.from(p.buffer.subarray(p.start + 4, p.end)));
    }
    if (this.fields.length < this.count) return this.field;
    return this.fieldsEnd;
  }

  fieldsEnd(p: RawPacket, c: RawConnection): State {
    if (!isEof(p)) return this.finish({ error: new Error('Expected an EOF packet after the columns') });
    const m = this.last;
    let columns: FieldInfo[];
    let ok: boolean;
    if (this.same && m) {
      columns = m.columns;
      ok = m.relayable;
    } else {
      ok = this.fields.every(relayable);
      columns = this.fields.map((f) => fieldInfoOf(f, undefined, this.memo?.schema));
      if (this.memo) this.memo.last = { raw: this.raw, fields: this.fields, columns, relayable: ok };
    }
    if (!ok) {
      // Nothing has reached the sink: the caller runs the statement the normal way. The
      // rest of this result must not be read (it may be long), so the caller destroys the
      // connection; the server stops at its next write. A pipelined one reads it to the end.
      this.finish({ declined: true });
      if (!this.pipelined) return null;
      this.stopped = true;
      return this.row;
    }
    // Stopped before its columns came (a pipelined statement cancelled while it waited).
    if (this.stopped) return this.row;
    this.headed = true;
    this.sink.head(columns, () => c.resume());
    return this.row;
  }

  row(p: RawPacket, c: RawConnection): State {
    if (isEof(p)) {
      this.finish({ rows: this.rows });
      return null;
    }
    if (this.stopped) return this.row;
    this.rows++;
    if (this.sink.row(p.buffer, p.start + 4, p.end)) return this.row;
    // A slow client pauses the connection. A pipelined statement's connection carries other
    // clients' statements too, so it pauses only once this result holds much in memory.
    if (this.pipelined) {
      this.unpaused += p.end - p.start;
      if (this.unpaused < PIPELINED_UNPAUSED_BYTES) return this.row;
    }
    c.pause();
    return this.row;
  }
}

/** An EOF packet (0xfe and short: a row whose first value is 2^24 bytes or more also starts with 0xfe). */
function isEof(p: RawPacket): boolean {
  return p.buffer[p.start + 4] === 0xfe && p.end - p.start - 4 < 9;
}

/**
 * One pooled connection's side of relayed statements, one at a time: the listeners on the
 * connection and on the statement's signal are made once per connection, not per statement
 * (a fresh closure on an AbortSignal costs about 1.5 us in Node 20; a point lookup's
 * CPU through the listener is about 100 us).
 */
export class RelayLink {
  private cmd: RelayCommand | null = null;
  private signal: AbortSignal | undefined;
  private resolve: ((end: RelayEnd) => void) | null = null;

  constructor(
    private readonly conn: RawConnection & EventEmitter,
    private readonly kill: () => Promise<void>,
  ) {}

  start(
    sql: string,
    sink: ResultPacketSink,
    signal: AbortSignal | undefined,
    resolve: (end: RelayEnd) => void,
    memo: ColumnsMemo | null = null,
  ): void {
    this.resolve = resolve;
    this.signal = signal;
    this.conn.on('error', this.gone);
    this.conn.on('end', this.gone);
    signal?.addEventListener('abort', this.onAbort);
    const cmd = new RelayCommand(
      sql,
      sink,
      (end) => {
        if (this.cmd === cmd) this.done(end);
      },
      null,
      memo,
    );
    this.cmd = cmd;
    this.conn.addCommand(cmd);
  }

  private readonly gone = (e?: Error) => this.done({ error: e ?? connectionLost() });

  private readonly onAbort = () => {
    void this.kill();
    this.cmd?.stop(this.conn);
  };

  private readonly done = (end: RelayEnd) => {
    const resolve = this.resolve;
    if (!resolve) return;
    this.resolve = null;
    this.cmd = null;
    this.conn.off('error', this.gone);
    this.conn.off('end', this.gone);
    this.signal?.removeEventListener('abort', this.onAbort);
    this.signal = undefined;
    resolve(end);
  };
}
