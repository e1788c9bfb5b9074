/**
 * A client connection's transaction, as the engine sees it (the MySQL face keeps one per
 * connection; HTTP and MCP statements have none and commit one by one). Open while the
 * client is in an explicit transaction (START TRANSACTION / BEGIN) or has autocommit off.
 * The first write inside it holds one connection of its source (Source.hold, which sends
 * BEGIN); later statements reading or writing that source run on the held connection, so
 * they see the transaction's own writes; a write to any other transactional source is
 * refused (1235) with nothing written. COMMIT / ROLLBACK end it on the source and give the
 * connection back. docs/reference/wire.md "Transactions".
 */
import { ErrorCode, SqlError } from '../core/errors.js';
import type { HeldConnection, SavepointOp, Source } from '../sources/types.js';

export class Transaction {
  private autocommitOn = true;
  private explicit = false;
  /** `wrote`: a write on it succeeded (until then a failed first write gives it back). */
  private held: { source: Source; conn: HeldConnection; wrote: boolean } | null = null;
  /** A hold in progress (the first write's), so a second one waits for it. */
  private pendingHold: Promise<HeldConnection> | null = null;

  /** `onChange`: told after each change of state (the MySQL face's status flags follow it). */
  constructor(private readonly onChange?: () => void) {}

  /** Whether writes now belong to a transaction (explicit, or autocommit off). */
  get open(): boolean {
    return this.explicit || !this.autocommitOn;
  }

  get autocommit(): boolean {
    return this.autocommitOn;
  }

  /** Whether a transaction has begun: explicitly, or by a write holding a source's connection. */
  get inTransaction(): boolean {
    return this.explicit || this.held !== null;
  }

  /** The held connection when `source` is the transaction's source; undefined otherwise. */
  heldFor(source: Source): HeldConnection | undefined {
    return this.held?.source === source ? this.held.conn : undefined;
  }

  /** Whether some source's connection is held now. */
  get holding(): boolean {
    return this.held !== null;
  }

  /**
   * The connection a write to `source` runs on: the held one (held now on the first write),
   * or undefined when no transaction is open or the source cannot take part (its writes apply
   * at once). A second transactional source is refused with 1235 naming both.
   */
  async forWrite(
    source: Source,
    signal?: AbortSignal,
    what = 'a write to',
  ): Promise<HeldConnection | undefined> {
    if (!this.open || !source.hold) return undefined;
    if (this.pendingHold) await this.pendingHold.catch(() => {});
    if (this.held) {
      if (this.held.source === source) return this.held.conn;
      throw new SqlError(
        ErrorCode.NOT_SUPPORTED,
        `A transaction writes to one source: this one already wrote to '${this.held.source.name}', so ${what} '${source.name}' is refused (nothing was written); COMMIT or ROLLBACK first`,
      );
    }
    const p = source.hold(signal);
    this.pendingHold = p;
    try {
      const conn = await p;
      this.held = { source, conn, wrote: false };
      this.onChange?.();
      return conn;
    } finally {
      this.pendingHold = null;
    }
  }

  /**
   * Run a write to `source` on the connection `forWrite` gives. A transaction belongs to the
   * source of its first write that succeeded: when the write that held the connection fails,
   * the connection is rolled back and given back, so a client that goes on after the error
   * (PyMySQL at its defaults) may write to another source.
   */
  async write<T>(
    source: Source,
    signal: AbortSignal | undefined,
    fn: (held: HeldConnection | undefined) => Promise<T>,
  ): Promise<T> {
    const held = await this.forWrite(source, signal);
    try {
      const out = await fn(held);
      if (held && this.held?.conn === held) this.held.wrote = true;
      return out;
    } catch (e) {
      if (held && this.held?.conn === held && !this.held.wrote) {
        this.held = null;
        this.onChange?.();
        await held.end(false).catch(() => {});
      }
      throw e;
    }
  }

  /** START TRANSACTION / BEGIN: the open transaction is committed first, as MySQL does. */
  async begin(): Promise<void> {
    await this.end(true);
    this.explicit = true;
    this.onChange?.();
  }

  /** COMMIT (true) or ROLLBACK (false): forwarded to the held source, its connection given back. */
  async end(commit: boolean): Promise<void> {
    this.explicit = false;
    const held = this.held;
    this.held = null;
    this.onChange?.();
    if (held) await held.conn.end(commit);
  }

  /** SET autocommit: turning it on commits the open transaction, as MySQL does. */
  async setAutocommit(on: boolean): Promise<void> {
    if (on && !this.autocommitOn) await this.end(true);
    this.autocommitOn = on;
    this.onChange?.();
  }

  /** SAVEPOINT and its kin go to the held source; without one there is nothing to mark or undo. */
  async savepoint(op: SavepointOp, name: string): Promise<void> {
    if (this.held) await this.held.conn.savepoint(op, name);
  }
}
