/**
 * The server's process list (docs/reference/wire.md, SPEC §9): every statement a face sent
 * (HTTP, MCP, the MySQL listener) while it runs, and every MySQL connection while it is open
 * (Command `Sleep` between its statements), under one id space: connection ids and the ids
 * of HTTP/MCP statements come from one counter, so `KILL n` names one thing whatever its face.
 * SHOW [FULL] PROCESSLIST, information_schema.PROCESSLIST and KILL read it; the engine
 * registers statements (engine.ts `deadline`), the MySQL face its connections.
 *
 * Who sees what: a principal sees its own entries; the admin user (TRIBUTARY_USERNAME) and
 * everyone when auth is off (all callers are `local` then) see all. KILL of an entry the
 * caller cannot see is 1095, of no entry 1094, as MySQL answers.
 */
import { SqlError } from '../../core/errors.js';
import type { FieldInfo, Row } from '../../core/types.js';

/** Who asks (a statement's caller): the principal's id, null without auth. */
export interface Viewer {
  principal: string | null;
}

/** A MySQL connection, as KILL reaches it. */
export interface ConnectionHooks {
  /** KILL QUERY when no statement of it is registered (a statement between its stages). */
  cancel(): void;
  /** KILL CONNECTION. */
  close(): void;
}

export interface ConnectionInfo extends ConnectionHooks {
  id: number;
  /** The name it logged in with (any name is accepted without auth). */
  user: string;
  principal: string | null;
  /** `address:port`. */
  host: string;
  /** Its default database now (USE changes it). */
  db(): string | null;
}

/** What the engine knows of a statement when it starts. */
export interface StatementStart {
  principal: string | null;
  transport: string;
  /** `address[:port]` of the client, when the face knows it. */
  host?: string;
  /** The MySQL connection it runs on (then it is listed under that connection's id). */
  connection?: number;
  sql: string;
  db: string | undefined;
}

/** A running statement's handle (the engine's Deadline): KILL stops it at its sources (1317). */
export interface Killable {
  kill(): void;
}

interface Entry {
  id: number;
  user: string;
  principal: string | null;
  host: string;
  transport: string;
  db: () => string | null;
  /** When the current state began (Date.now()). */
  since: number;
  /** The running statement's text; null while a connection sleeps. */
  sql: string | null;
  /** The running statement. */
  running: Killable | null;
  connection: ConnectionHooks | null;
}

/** SHOW PROCESSLIST's Info is cut here unless FULL (MySQL's 100 characters). */
export const INFO_CHARS = 100;

const field = (name: string, type: FieldInfo['type'] = 'VARCHAR'): FieldInfo => ({ name, type });

/** SHOW [FULL] PROCESSLIST's columns, MySQL's names and order. */
export const SHOW_COLUMNS: FieldInfo[] = [
  field('Id', 'BIGINT'),
  field('User'),
  field('Host'),
  field('db'),
  field('Command'),
  field('Time', 'BIGINT'),
  field('State'),
  field('Info'),
];

/** information_schema.PROCESSLIST's columns (MySQL 8). */
export const INFO_SCHEMA_COLUMNS: FieldInfo[] = SHOW_COLUMNS.map((c) => ({
  ...c,
  name: c.name.toUpperCase(),
}));

/** MySQL's codes for KILL of an id that is not there / not the caller's. */
const UNKNOWN_THREAD = 1094;
const NOT_OWNER = 1095;

/** MySQL's thread ids are unsigned 32-bit; clients echo them in KILL. */
const MAX_ID = 0xffffffff;

export class ProcessList {
  private lastId = 0;
  private readonly entries = new Map<number, Entry>();
  /** A running statement's entry by its handle. */
  private readonly byKey = new Map<Killable, Entry>();

  constructor(
    /** The admin user (TRIBUTARY_USERNAME), who sees and may kill everything; null without token auth. */
    private readonly admin: string | null = null,
  ) {}

  /** A fresh id, never one in use (connection ids are handed out before they are listed). */
  nextId(): number {
    do this.lastId = this.lastId >= MAX_ID ? 1 : this.lastId + 1;
    while (this.entries.has(this.lastId));
    return this.lastId;
  }

  /** A MySQL connection logged in: listed (Sleep) until `disconnect`. */
  connect(c: ConnectionInfo): void {
    this.entries.set(c.id, {
      id: c.id,
      user: c.user,
      principal: c.principal,
      host: c.host,
      transport: 'mysql',
      db: c.db,
      since: Date.now(),
      sql: null,
      running: null,
      connection: { cancel: c.cancel, close: c.close },
    });
  }

  disconnect(id: number): void {
    const e = this.entries.get(id);
    if (e?.connection) this.entries.delete(id);
  }

  /** A statement starts; `end(key)` when it is over. */
  begin(key: Killable, s: StatementStart): void {
    const now = Date.now();
    const conn = s.connection === undefined ? undefined : this.entries.get(s.connection);
    if (conn?.connection) {
      conn.sql = s.sql;
      conn.since = now;
      conn.running = key;
      this.byKey.set(key, conn);
      return;
    }
    const db = s.db ?? null;
    const e: Entry = {
      id: this.nextId(),
      user: s.principal ?? 'local',
      principal: s.principal,
      host: s.host ?? '',
      transport: s.transport,
      db: () => db,
      since: now,
      sql: s.sql,
      running: key,
      connection: null,
    };
    this.entries.set(e.id, e);
    this.byKey.set(key, e);
  }

  end(key: Killable): void {
    const e = this.byKey.get(key);
    if (!e) return;
    this.byKey.delete(key);
    if (e.connection) {
      e.sql = null;
      e.running = null;
      e.since = Date.now();
    } else this.entries.delete(e.id);
  }

  private sees(v: Viewer, e: Entry): boolean {
    return v.principal === null || v.principal === this.admin || v.principal === e.principal;
  }

  /** The rows `v` may see: SHOW [FULL] PROCESSLIST (Info cut unless full) or information_schema (full). */
  rows(v: Viewer, full: boolean): Row[] {
    const now = Date.now();
    const out: Row[] = [];
    for (const e of [...this.entries.values()].sort((a, b) => a.id - b.id)) {
      if (!this.sees(v, e)) continue;
      const running = e.sql !== null;
      const info = running && !full && e.sql!.length > INFO_CHARS ? e.sql!.slice(0, INFO_CHARS) : e.sql;
      // The face of a statement not sent over MySQL is told in State (MySQL's column is free text).
      const state = !running ? '' : e.transport === 'mysql' ? 'executing' : `executing (${e.transport})`;
      out.push([
        e.id,
        e.user,
        e.host,
        e.db(),
        running ? 'Query' : 'Sleep',
        Math.max(0, Math.floor((now - e.since) / 1000)),
        state,
        info,
      ]);
    }
    return out;
  }

  /**
   * KILL [QUERY | CONNECTION] id from `v`: stops the entry's statement at its sources (and
   * closes a MySQL connection unless `query`). Throws 1094 / 1095 as MySQL does.
   */
  kill(v: Viewer, id: number, query: boolean): void {
    const e = this.entries.get(id);
    if (!e) throw new SqlError(UNKNOWN_THREAD, `Unknown thread id: ${id}`);
    if (!this.sees(v, e)) throw new SqlError(NOT_OWNER, `You are not owner of thread ${id}`);
    if (e.running) e.running.kill();
    else if (query) e.connection?.cancel();
    if (!query) e.connection?.close();
  }
}
