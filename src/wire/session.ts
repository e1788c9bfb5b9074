/**
 * One client connection: the handshake (TLS upgrade, password check, rate limit shared with
 * /api/login), then commands one at a time. Statements go to the engine exactly as MCP and
 * HTTP send them; connection chatter is answered by chatter.ts; rows stream from the engine
 * to the socket, waiting for the socket to drain, and a client that goes away cancels the
 * statement at its sources.
 */
import type { Socket } from 'node:net';
import { TLSSocket } from 'node:tls';
import { localPrincipal } from '../auth/principal.js';
import { SqlError } from '../core/errors.js';
import type { FieldInfo } from '../core/types.js';
import type { QueryContext, RowStream } from '../sql/engine-types.js';
import { readExecutableComments } from '../sql/parse/executable-comments.js';
import { errorResult } from '../sql/result.js';
import { CACHING_SHA2, newScramble } from './auth.js';
import { type Charset, charsetNamed, charsetOfCollation, decodeName, UTF8 } from './charsets.js';
import { type Answer, chatter, MAX_ALLOWED_PACKET, type SessionInfo, type VarValue } from './chatter.js';
import {
  columnsIn,
  rowIn,
  type WireColumn,
  wireColumns,
  writeBinaryRow,
  writeColumnDef,
  writeTextRow,
} from './columns.js';
import { credentialOf } from './credentials.js';
import type { Killable, WireDeps } from './deps.js';
import { type AuthStep, isSslRequest, PasswordExchange, parseHandshakeResponse } from './handshake.js';
import { MalformedPacket, PacketIn, PacketOut, PacketParser, PacketTooLarge } from './packets.js';
import { bindParams, placeholders, readParams } from './params.js';
import { BAD_HANDSHAKE, PREAUTH_TOO_MUCH, PreAuthBudget } from './preauth-limits.js';
import { RelaySink } from './relay-sink.js';
import { writeEof, writeError, writeGreeting, writeOk } from './replies.js';
import { createTableText, INDEX_COLUMNS, indexRows } from './schema-text.js';
import { inlineSessionValues, UnknownVariable } from './session-values.js';
import { decodeStatement } from './statement-bytes.js';
import { WireTransaction } from './transaction.js';

const FLUSH_BYTES = 64 * 1024;

const CMD = {
  QUIT: 0x01,
  INIT_DB: 0x02,
  QUERY: 0x03,
  FIELD_LIST: 0x04,
  STATISTICS: 0x09,
  PROCESS_KILL: 0x0c,
  DEBUG: 0x0d,
  PING: 0x0e,
  CHANGE_USER: 0x11,
  STMT_PREPARE: 0x16,
  STMT_EXECUTE: 0x17,
  STMT_SEND_LONG_DATA: 0x18,
  STMT_CLOSE: 0x19,
  STMT_RESET: 0x1a,
  SET_OPTION: 0x1b,
  RESET_CONNECTION: 0x1f,
} as const;

interface Prepared {
  sql: string;
  at: number[];
  types: number[] | null;
  longData: Map<number, Buffer[]>;
}

function isLoopback(addr: string | undefined): boolean {
  if (!addr) return false;
  const a = addr.startsWith('::ffff:') ? addr.slice(7) : addr;
  return a === '::1' || /^127\./.test(a);
}

export class Session implements Killable {
  private socket: Socket;
  private parser: PacketParser;
  private readonly out = new PacketOut();
  private phase: 'greeting' | 'auth' | 'command' | 'closed' = 'greeting';
  private readonly scramble = newScramble();
  private exchange: PasswordExchange | null = null;
  private user = '';
  private tls = false;
  private readonly queue: [Buffer, number][] = [];
  private busy = false;
  /** The server is draining: end the connection once the running command is answered. */
  private closeWhenIdle = false;
  private readonly ctx: QueryContext = {};
  private readonly vars = new Map<string, VarValue>();
  /** What statement bytes are in: the handshake's collation, then SET NAMES / character_set_client. */
  private charset: Charset = UTF8;
  /**
   * What results are written in (character_set_results): the handshake's collation, then SET
   * NAMES / CHARACTER SET / character_set_results. UTF8 also for NULL and binary (no conversion).
   */
  private results: Charset = UTF8;
  private handshakeCharset: Charset = UTF8;
  /** START TRANSACTION / autocommit off (transaction.ts); its state is the status flags of `out`. */
  private readonly txn = new WireTransaction(this.out);
  private readonly statements = new Map<number, Prepared>();
  private nextStmt = 1;
  /** The running statement's cancel switch (KILL QUERY, a client gone away). */
  private running: AbortController | null = null;
  /**
   * The switch the next statement gets, lent to the engine (ExecOptions.abort). Statements of
   * a connection run one at a time and every listener a source adds is removed when its
   * statement ends, so one switch serves them all until it is thrown.
   */
  private switch = new AbortController();
  private readonly timer: NodeJS.Timeout;
  private readonly address: string;
  private readonly preAuth = new PreAuthBudget();

  constructor(
    socket: Socket,
    readonly id: number,
    private readonly deps: WireDeps,
  ) {
    this.socket = socket;
    this.address = socket.remoteAddress ?? '';
    this.parser = this.newParser();
    this.attach(socket);
    // A handshake that never finishes must not hold the connection (MySQL's connect_timeout).
    this.timer = setTimeout(() => this.close(), deps.handshakeTimeoutMs);
    this.timer.unref();
    writeGreeting(this.out, {
      serverVersion: deps.serverVersion,
      connectionId: id,
      scramble: this.scramble,
      plugin: CACHING_SHA2,
      tls: deps.tls !== null,
    });
    this.flush();
  }

  private newParser(): PacketParser {
    return new PacketParser(MAX_ALLOWED_PACKET, (payload, seq) => {
      if (this.phase === 'greeting' && this.deps.tls && isSslRequest(payload)) return false;
      this.queue.push([payload, seq]);
      return true;
    });
  }

  private attach(s: Socket): void {
    s.on('data', this.onData);
    s.on('error', () => this.close());
    // A client that half-closes (FIN) while its statement runs is gone: cancel it at the source.
    s.on('end', () => this.close());
    s.on('close', () => this.close());
  }

  private readonly onData = (chunk: Buffer) => {
    // Bytes after the hang-up (the socket lingers a moment to send the last answer) are dropped.
    if (this.phase === 'closed') return;
    if (this.phase !== 'command' && !this.preAuth.take(chunk.length)) {
      writeError(this.out, BAD_HANDSHAKE, PREAUTH_TOO_MUCH);
      this.flush();
      this.close();
      return;
    }
    let left: Buffer | null;
    try {
      left = this.parser.push(chunk);
    } catch (e) {
      if (e instanceof PacketTooLarge) {
        this.out.seq = 1;
        writeError(this.out, 1153, e.message);
        this.flush();
      }
      this.close();
      return;
    }
    if (left !== null) this.startTls(left);
    void this.drain();
  };

  /** The client asked for TLS: wrap the socket and read the rest of the handshake through it. */
  private startTls(left: Buffer): void {
    const raw = this.socket;
    raw.removeListener('data', this.onData);
    raw.removeAllListeners('close');
    raw.removeAllListeners('error');
    raw.pause();
    if (left.length) raw.unshift(left);
    const secure = new TLSSocket(raw, { isServer: true, secureContext: this.deps.tls! });
    this.socket = secure;
    this.tls = true;
    this.parser = this.newParser();
    this.attach(secure);
    raw.on('close', () => this.close());
  }

  private async drain(): Promise<void> {
    if (this.busy) return;
    this.busy = true;
    try {
      while (this.queue.length && this.phase !== 'closed') {
        const [payload, seq] = this.queue.shift()!;
        this.out.seq = (seq + 1) & 0xff;
        try {
          await this.handle(payload);
        } catch (e) {
          if (e instanceof MalformedPacket) {
            writeError(this.out, 1835, 'Malformed communication packet');
            this.flush();
            this.close();
            return;
          }
          const r = errorResult(e);
          if (r.error_code === 1105)
            this.deps.logger.error({ err: (e as Error)?.message }, 'mysql face failed');
          writeError(this.out, r.error_code, r.error_message);
        }
        this.flush();
      }
    } finally {
      this.busy = false;
      if (this.closeWhenIdle) this.close();
    }
  }

  /** Whether a command is being answered now. */
  get working(): boolean {
    return this.busy;
  }

  /**
   * The server is draining (wire/server.ts): an idle connection ends now, a busy one once its
   * command is answered. A client's pool reconnects, through the load balancer, elsewhere.
   */
  endWhenIdle(): void {
    this.closeWhenIdle = true;
    if (!this.busy) this.close();
  }

  private handle(payload: Buffer): Promise<void> | undefined {
    switch (this.phase) {
      case 'greeting':
        return this.handshake(payload);
      case 'auth':
        return this.authNext(payload);
      case 'command':
        return this.command(payload);
      default:
        return undefined;
    }
  }

  private async handshake(payload: Buffer): Promise<void> {
    const r = parseHandshakeResponse(payload);
    this.user = r.user;
    this.handshakeCharset = charsetOfCollation(r.collation);
    const users = this.deps.auth;
    if (!users) {
      if (!isLoopback(this.address)) {
        return this.deny(
          `Access denied for user '${r.user}'@'${this.address}': without TRIBUTARY_USERNAME and TRIBUTARY_PASSWORD only loopback clients may connect`,
        );
      }
      this.ctx.principal = localPrincipal();
      return this.accept(r.db);
    }
    const gate = await this.deps.loginLimiter?.consume(this.limitKey());
    if (gate && !gate.allowed) {
      writeError(
        this.out,
        1129,
        `Host '${this.address}' is blocked after too many failed logins; retry after ${gate.retryAfterS} s`,
      );
      this.flush();
      this.close();
      return;
    }
    this.phase = 'auth';
    this.pendingDb = r.db;
    this.exchange = new PasswordExchange(credentialOf(users, r.user), this.scramble, this.tls);
    await this.step(this.exchange.first(r.plugin, r.token), r.token.length > 0);
  }

  private pendingDb: string | null = null;

  private async authNext(payload: Buffer): Promise<void> {
    if (!this.exchange) return this.deny(this.deniedMessage(true));
    await this.step(await this.exchange.next(payload), payload.length > 0);
  }

  private async step(s: AuthStep, usedPassword: boolean): Promise<void> {
    if (s.kind === 'denied') return this.deny(this.deniedMessage(usedPassword));
    if (s.kind === 'send' || s.kind === 'sendThenOk') {
      this.out.begin().bytes(s.payload).end();
      if (s.kind === 'send') return;
    }
    // A user the users file dropped while it logged in is refused all the same.
    if (!this.refreshPrincipal()) return this.deny(this.deniedMessage(usedPassword));
    await this.deps.loginLimiter?.reset(this.limitKey());
    return this.accept(this.pendingDb);
  }

  /** The users file's version the connection's principal was read at. */
  private usersVersion = -1;

  /**
   * The connection's principal from the users as they are now: groups follow a changed users
   * file from the next statement on. False when the user is no longer configured.
   */
  private refreshPrincipal(): boolean {
    const users = this.deps.auth;
    if (!users) return true;
    this.usersVersion = users.version;
    const a = users.account(this.user);
    if (!a) return false;
    this.ctx.principal = { user: a.user, groups: a.groups, admin: a.admin };
    return true;
  }

  private limitKey(): string {
    // The key /api/login uses: failures over either count against one address.
    return `ip:${this.address.startsWith('::ffff:') ? this.address.slice(7) : this.address}`;
  }

  private deniedMessage(usedPassword: boolean): string {
    return `Access denied for user '${this.user}'@'${this.address}' (using password: ${usedPassword ? 'YES' : 'NO'})`;
  }

  private deny(message: string): void {
    this.deps.logger.warn({ ip: this.address, face: 'mysql' }, 'failed login');
    writeError(this.out, 1045, message);
    this.flush();
    this.close();
  }

  private async accept(db: string | null): Promise<void> {
    if (db) {
      const r = await this.deps.engine.execute(`USE \`${db.replace(/`/g, '``')}\``, this.ctx);
      if (r.type === 'error') {
        writeError(this.out, r.error_code, r.error_message);
        this.flush();
        this.close();
        return;
      }
    }
    clearTimeout(this.timer);
    this.phase = 'command';
    this.exchange = null;
    this.resetCharset();
    this.deps.engine.processes?.connect({
      id: this.id,
      user: this.user,
      principal: this.principal(),
      host: `${this.info().host}:${this.socket.remotePort ?? 0}`,
      db: () => this.ctx.db ?? null,
      cancel: () => this.cancel(),
      close: () => this.close(),
    });
    writeOk(this.out);
  }

  // Not async, nor is `query`: each async layer that returns another's promise costs the
  // statement three microtask turns, and a point lookup goes through several.
  private command(payload: Buffer): Promise<void> | undefined {
    const users = this.deps.auth;
    if (users && users.version !== this.usersVersion && !this.refreshPrincipal()) {
      writeError(this.out, 1045, `Access denied for user '${this.user}': the user is no longer configured`);
      this.flush();
      this.close();
      return;
    }
    const p = new PacketIn(payload);
    const cmd = p.int1();
    switch (cmd) {
      case CMD.QUIT:
        this.close();
        return;
      case CMD.INIT_DB:
        return this.query(`USE \`${decodeName(p.rest(), this.charset).replace(/`/g, '``')}\``, false);
      case CMD.QUERY:
        return this.query(decodeStatement(p.rest(), this.charset), false);
      case CMD.FIELD_LIST:
        return this.fieldList(decodeName(p.nulBytes(), this.charset));
      case CMD.RESET_CONNECTION:
        this.vars.clear();
        this.resetCharset();
        return this.txn.reset().then(() => writeOk(this.out));
      case CMD.PING:
      case CMD.DEBUG:
        writeOk(this.out);
        return;
      case CMD.STATISTICS:
        this.out
          .begin()
          .text(`Uptime: ${Math.round(process.uptime())}  Threads: ${this.deps.sessions.size}`)
          .end();
        return;
      case CMD.PROCESS_KILL:
        return this.answer({ kind: 'kill', id: p.int4(), query: false }, false);
      case CMD.SET_OPTION:
        writeEof(this.out);
        return;
      case CMD.STMT_PREPARE:
        this.prepare(decodeStatement(p.rest(), this.charset));
        return;
      case CMD.STMT_EXECUTE:
        return this.execute(p);
      case CMD.STMT_SEND_LONG_DATA: {
        const st = this.statements.get(p.int4());
        const param = p.int2();
        if (st) {
          const chunks = st.longData.get(param) ?? [];
          chunks.push(Buffer.from(p.rest()));
          st.longData.set(param, chunks);
        }
        this.out.seq = 0;
        return;
      }
      case CMD.STMT_CLOSE:
        this.statements.delete(p.int4());
        return;
      case CMD.STMT_RESET: {
        const st = this.statements.get(p.int4());
        if (!st) {
          this.unknownStatement();
          return;
        }
        st.longData.clear();
        writeOk(this.out);
        return;
      }
      default:
        writeError(this.out, 1047, `Unknown command ${cmd}`);
    }
  }

  /** The handshake's character set again (a new session, COM_RESET_CONNECTION). */
  private resetCharset(): void {
    this.charset = this.handshakeCharset;
    this.results = this.handshakeCharset;
    if (this.charset === UTF8) return;
    this.vars.set('character_set_client', this.charset.name);
    this.vars.set('character_set_connection', this.charset.name);
    this.vars.set('character_set_results', this.charset.name);
  }

  private info(): SessionInfo {
    return {
      db: this.ctx.db ?? null,
      user: this.user,
      host: this.address.startsWith('::ffff:') ? this.address.slice(7) : this.address,
      connectionId: this.id,
      serverVersion: this.deps.serverVersion,
      productVersion: this.deps.productVersion,
      port: this.deps.port(),
      tls: this.tls,
      readOnly: this.deps.readOnly,
      vars: this.vars,
      principal: this.ctx.principal,
    };
  }

  private query(sql0: string, binary: boolean): Promise<void> | undefined {
    // `/*!40101 SET NAMES utf8mb4 */` is a SET NAMES to the chatter below, as to MySQL.
    const sql = readExecutableComments(sql0);
    const info = this.info();
    const a = chatter(sql, info);
    if (a) return this.answer(a, binary);
    let text: string;
    try {
      text = inlineSessionValues(sql, info);
    } catch (e) {
      if (!(e instanceof UnknownVariable)) throw e;
      writeError(this.out, 1193, e.message);
      return;
    }
    return this.run(text, binary);
  }

  private async answer(a: Answer, binary: boolean): Promise<void> {
    switch (a.kind) {
      case 'ok':
        writeOk(this.out);
        return;
      case 'set': {
        const cs = a.vars.find(([k]) => k === 'character_set_client');
        const rs = a.vars.find(([k]) => k === 'character_set_results');
        const charset = cs ? charsetNamed(String(cs[1])) : this.charset;
        // NULL (or binary): results as the columns hold them, utf8mb4 here.
        const results = !rs ? this.results : rs[1] === null ? UTF8 : charsetNamed(String(rs[1]));
        if (!charset || !results) {
          writeError(
            this.out,
            1115,
            `Unknown character set: '${(charset ? rs : cs)![1]}' (the MySQL listener converts utf8mb4, latin1 and the other single-byte sets)`,
          );
          return;
        }
        await this.txn.set(a.vars);
        for (const [k, v] of a.vars) this.vars.set(k, v);
        this.charset = charset;
        this.results = results;
        writeOk(this.out);
        return;
      }
      case 'transaction':
        await this.txn.run(a.statement);
        writeOk(this.out);
        // COMMIT RELEASE / ROLLBACK RELEASE: ended, then the server closes the connection (as MySQL).
        if ('release' in a.statement && a.statement.release) {
          this.flush();
          this.close();
        }
        return;
      case 'error':
        writeError(this.out, a.code, a.message);
        return;
      case 'rows':
        return this.memRows(a.columns, a.rows, binary);
      case 'sql':
        return this.run(a.sql, binary);
      case 'kill': {
        // Any face's statement, through the engine's process list (its own connection: below).
        if (this.deps.engine.processes && (a.query || a.id !== this.id))
          return this.run(`KILL ${a.query ? 'QUERY ' : ''}${a.id}`, binary);
        const target = this.deps.sessions.get(a.id);
        if (!target) {
          writeError(this.out, 1094, `Unknown thread id: ${a.id}`);
          return;
        }
        if (a.query) target.cancel();
        else if (target === this) {
          writeError(this.out, 1317, 'Query execution was interrupted');
          this.flush();
          this.close();
          return;
        } else target.close();
        writeOk(this.out);
        return;
      }
      case 'show_create_table':
      case 'show_index': {
        const db = a.db ?? this.ctx.db;
        if (!db) {
          writeError(this.out, 1046, 'No database selected: USE a data source or name it (source.table)');
          return;
        }
        const cols = await this.deps.engine.listColumns(db, a.table);
        if (a.kind === 'show_create_table') {
          const columns: FieldInfo[] = [
            { name: 'Table', type: 'VARCHAR' },
            { name: 'Create Table', type: 'TEXT' },
          ];
          return this.memRows(columns, [[a.table, createTableText(a.table, cols)]], binary);
        }
        const columns = INDEX_COLUMNS.map(
          (name): FieldInfo => ({
            name,
            type: /^(Non_unique|Seq_in_index|Cardinality|Sub_part)$/.test(name) ? 'BIGINT' : 'VARCHAR',
          }),
        );
        return this.memRows(columns, indexRows(a.table, cols), binary);
      }
    }
  }

  private async memRows(fields: FieldInfo[], rows: unknown[][], binary: boolean): Promise<void> {
    const cols = this.columns(fields, rows);
    this.writeHead(cols);
    for (const r of rows) this.writeRow(cols, r, binary);
    writeEof(this.out);
  }

  /** A result's column definitions, in character_set_results (columns.ts columnsIn). */
  private columns(fields: FieldInfo[], sample: unknown[][]): WireColumn[] {
    const cols = wireColumns(fields, sample);
    return this.results === UTF8 ? cols : columnsIn(cols, this.results);
  }

  private writeHead(cols: WireColumn[]): void {
    this.out.begin().lenenc(cols.length).end();
    const names = this.results === UTF8 ? null : this.results;
    for (const c of cols) writeColumnDef(this.out, c, this.ctx.db ?? '', '', names);
    writeEof(this.out);
  }

  private writeRow(cols: WireColumn[], row0: unknown[], binary: boolean): void {
    // Another character_set_results than utf8mb4: its text cells as bytes (one check a row).
    const row = this.results === UTF8 ? row0 : rowIn(cols, row0, this.results);
    if (binary) writeBinaryRow(this.out, cols, row);
    else writeTextRow(this.out, cols, row);
  }

  /** Run one statement in the engine and stream its answer. */
  private async run(sql: string, binary: boolean): Promise<void> {
    if (this.switch.signal.aborted) this.switch = new AbortController();
    const abort = this.switch;
    this.running = abort;
    const started = performance.now();
    let rows = 0;
    let outcome = 'ok';
    let code: number | undefined;
    // Lent to the engine, which aborts it on time-out or shutdown (then it is replaced above).
    const opts = {
      abort,
      readOnly: this.deps.readOnly,
      // The audit log, metrics and traces see this face as they see the others.
      caller: { principal: this.principal(), transport: 'mysql', connection: this.id },
      transaction: this.txn.state,
    };
    try {
      // A statement through the engine's result relay (relay-sink.ts; prepared ones too), in
      // place rather than in a method of its own: an async layer less per point lookup.
      // The relay copies the source's utf8mb4 bytes: not when results are in another set.
      if (this.deps.engine.relay && !opts.readOnly && this.results === UTF8) {
        const sink = new RelaySink(this.out, this.socket, this.ctx.db ?? '', this.isClosed, binary);
        const r = await this.deps.engine.relay(sql, this.ctx, opts, sink);
        // null: the engine did not take it (nothing was run or written).
        if (r?.type === 'relayed') {
          sink.end();
          rows = r.rows;
          return;
        }
        if (r) {
          // As on the normal path: an ERR after the column definitions still ends the result.
          writeError(this.out, r.error_code, r.error_message);
          outcome = 'error';
          code = r.error_code;
          return;
        }
      }
      const r = await this.deps.engine.stream(sql, this.ctx, opts);
      if (r.type === 'error') {
        outcome = 'error';
        code = r.error_code;
        writeError(this.out, r.error_code, r.error_message);
      } else if (r.type === 'ok') writeOk(this.out, r.affected_rows ?? 0);
      else if (r.type === 'table') {
        rows = r.data.length;
        await this.memRows(
          r.column_names.map((name): FieldInfo => ({ name, type: 'VARCHAR' })),
          r.data,
          binary,
        );
      } else rows = await this.streamRows(r, binary, abort.signal);
    } catch (e) {
      const er = errorResult(e);
      outcome = 'error';
      code = er.error_code;
      writeError(this.out, er.error_code, er.error_message);
    } finally {
      this.running = null;
      this.logStatement(sql, started, rows, outcome, code, abort.signal.aborted);
    }
  }

  private logStatement(
    sql: string,
    started: number,
    rows: number,
    outcome: string,
    code: number | undefined,
    cancelled: boolean,
  ): void {
    if (this.deps.logger.isLevelEnabled('info')) {
      this.deps.logger.info(
        {
          face: 'mysql',
          connection: this.id,
          kind: /^\s*(\w+)/.exec(sql)?.[1]?.toUpperCase(),
          duration_ms: Math.round((performance.now() - started) * 10) / 10,
          rows,
          outcome,
          error_code: code,
          cancelled: cancelled || undefined,
        },
        'mysql statement',
      );
    }
  }

  private readonly isClosed = () => this.phase === 'closed';

  private principal(): string | null {
    return this.deps.auth ? this.user : null;
  }

  /** Column definitions after the first batch (DECIMAL scales come from it), then rows as they are read. */
  private async streamRows(r: RowStream, binary: boolean, signal: AbortSignal): Promise<number> {
    const it = r.batches[Symbol.asyncIterator]();
    let n = 0;
    let cols: WireColumn[] | null = null;
    try {
      for (;;) {
        const next = await it.next();
        if (!cols) {
          cols = this.columns(r.columns, next.done ? [] : next.value);
          this.writeHead(cols);
        }
        if (next.done) break;
        for (const row of next.value) this.writeRow(cols, row, binary);
        n += next.value.length;
        if (this.out.length >= FLUSH_BYTES) await this.flushAndWait();
        if (signal.aborted) throw new SqlError(1317, 'Query execution was interrupted');
      }
      writeEof(this.out);
    } catch (e) {
      // After the column definitions an ERR packet still ends the result (clients report it).
      const er = errorResult(e);
      if (!cols) throw e;
      writeError(this.out, er.error_code, er.error_message);
    } finally {
      await r.cancel().catch(() => {});
    }
    return n;
  }

  private async fieldList(table: string): Promise<void> {
    const db = this.ctx.db;
    if (!db) {
      writeError(this.out, 1046, 'No database selected: USE a data source first');
      return;
    }
    const cols = await this.deps.engine.listColumns(db, table);
    const wire = this.columns(
      // A table's own columns: each is its own origin (MySQL sends org_name = name here).
      cols.map((c) => ({
        name: c.name,
        type: c.type,
        origin: { schema: db, table, orgTable: table, orgName: c.name, flags: 0 },
      })),
      [],
    );
    const names = this.results === UTF8 ? null : this.results;
    for (const c of wire) writeColumnDef(this.out, c, db, table, names);
    writeEof(this.out);
  }

  private prepare(sql: string): void {
    const at = placeholders(sql);
    const id = this.nextStmt++;
    this.statements.set(id, { sql, at, types: null, longData: new Map() });
    this.out.begin().int1(0).int4(id).int2(0).int2(at.length).int1(0).int2(0).end();
    if (at.length) {
      const param: WireColumn = {
        name: '?',
        type: 'VARCHAR',
        code: 0xfd,
        charset: 63,
        length: 0,
        flags: 128,
        decimals: 0,
      };
      for (let i = 0; i < at.length; i++) writeColumnDef(this.out, param);
      writeEof(this.out);
    }
  }

  private unknownStatement(): void {
    writeError(this.out, 1243, 'Unknown prepared statement handler given to mysqld_stmt_execute');
  }

  private async execute(p: PacketIn): Promise<void> {
    const st = this.statements.get(p.int4());
    if (!st) return this.unknownStatement();
    p.int1(); // flags: a cursor is not opened; rows come as one result
    p.int4(); // iteration count, always 1
    const { values, types } = readParams(p, st.at.length, st.types, st.longData, this.charset);
    st.types = types;
    st.longData.clear();
    return this.query(bindParams(st.sql, st.at, values), true);
  }

  /** KILL QUERY: stop the running statement at its sources (it answers 1317). */
  cancel(): void {
    this.running?.abort();
  }

  private flush(): void {
    if (this.out.length === 0 || this.phase === 'closed') return;
    this.socket.write(this.out.take());
  }

  private async flushAndWait(): Promise<void> {
    if (this.out.length === 0 || this.phase === 'closed') return;
    if (this.socket.write(this.out.take())) return;
    await new Promise<void>((resolve) => {
      const done = () => {
        this.socket.off('drain', done);
        this.socket.off('close', done);
        resolve();
      };
      this.socket.on('drain', done);
      this.socket.on('close', done);
    });
  }

  close(): void {
    if (this.phase === 'closed') return;
    this.phase = 'closed';
    clearTimeout(this.timer);
    this.running?.abort();
    // A connection closed inside a transaction rolls it back (the source's connection goes back).
    this.txn
      .reset()
      .catch((e) =>
        this.deps.logger.warn({ err: (e as Error)?.message, face: 'mysql' }, 'rollback on close failed'),
      );
    this.queue.length = 0;
    this.statements.clear();
    this.deps.sessions.delete(this.id);
    this.deps.engine.processes?.disconnect(this.id);
    this.socket.end();
    this.socket.destroySoon?.();
    setTimeout(() => this.socket.destroy(), 1000).unref();
  }
}
