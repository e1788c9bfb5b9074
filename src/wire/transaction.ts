/**
 * Transaction statements of the MySQL face (docs/reference/wire.md "Transactions"): which
 * statements they are (pure), and the connection's Transaction (sql/transaction.ts) they
 * drive, whose state the OK and EOF packets report in their status flags.
 */
import { SqlError } from '../core/errors.js';
import type { SavepointOp } from '../sources/types.js';
import { Transaction } from '../sql/transaction.js';
import type { PacketOut } from './packets.js';
import { STATUS_AUTOCOMMIT, STATUS_IN_TRANS } from './replies.js';

export type TransactionStatement =
  | { op: 'begin' }
  | { op: 'commit' | 'rollback'; chain: boolean; release: boolean }
  | { op: 'savepoint'; action: SavepointOp; name: string };

const NAME = '(`(?:[^`]|``)+`|[\\w$]+)';
const CHAIN = '(?:\\s+AND\\s+(NO\\s+)?CHAIN)?(?:\\s+(NO\\s+)?RELEASE)?';
const BEGIN =
  /^(?:BEGIN(?:\s+WORK)?|START\s+TRANSACTION(?:\s+(?:READ\s+(?:ONLY|WRITE)|WITH\s+CONSISTENT\s+SNAPSHOT)(?:\s*,\s*(?:READ\s+(?:ONLY|WRITE)|WITH\s+CONSISTENT\s+SNAPSHOT))*)?)$/i;
const END = new RegExp(`^(COMMIT|ROLLBACK)(?:\\s+WORK)?${CHAIN}$`, 'i');
const ROLLBACK_TO = new RegExp(`^ROLLBACK(?:\\s+WORK)?\\s+TO\\s+(?:SAVEPOINT\\s+)?${NAME}$`, 'i');
const SAVEPOINT = new RegExp(`^(SAVEPOINT|RELEASE\\s+SAVEPOINT)\\s+${NAME}$`, 'i');

function name(n: string): string {
  return n.startsWith('`') ? n.slice(1, -1).replace(/``/g, '`') : n;
}

/** The transaction statement `body` is (comments and `;` already off); null for any other. */
export function transactionStatement(body: string): TransactionStatement | null {
  if (BEGIN.test(body)) return { op: 'begin' };
  const end = END.exec(body);
  if (end) {
    const chain = /\bCHAIN\b/i.test(body) && !end[2];
    const release = /\bRELEASE\b/i.test(body) && !end[3];
    // `AND CHAIN RELEASE` is a syntax error in MySQL: null, answered so by chatter.ts.
    if (chain && release) return null;
    return { op: end[1].toUpperCase() === 'COMMIT' ? 'commit' : 'rollback', chain, release };
  }
  const to = ROLLBACK_TO.exec(body);
  if (to) return { op: 'savepoint', action: 'rollback_to', name: name(to[1]) };
  const sp = SAVEPOINT.exec(body);
  if (sp)
    return {
      op: 'savepoint',
      action: /^RELEASE/i.test(sp[1]) ? 'release' : 'savepoint',
      name: name(sp[2]),
    };
  return null;
}

/** `SET autocommit = v` values as chatter.ts parses them: 1/0, ON/OFF, TRUE/FALSE. */
function autocommitValue(v: string | number | null): boolean | null {
  if (v === 1 || v === '1') return true;
  if (v === 0 || v === '0') return false;
  return null;
}

/** One connection's transaction and its status flags. */
export class WireTransaction {
  readonly state: Transaction;

  constructor(out: PacketOut) {
    this.state = new Transaction(() => {
      out.status =
        (this.state.autocommit ? STATUS_AUTOCOMMIT : 0) | (this.state.inTransaction ? STATUS_IN_TRANS : 0);
    });
  }

  /** Run a transaction statement; throws the source's error (COMMIT failed, SAVEPOINT unknown). */
  async run(s: TransactionStatement): Promise<void> {
    switch (s.op) {
      case 'begin':
        return this.state.begin();
      case 'commit':
      case 'rollback':
        await this.state.end(s.op === 'commit');
        if (s.chain) await this.state.begin();
        return;
      case 'savepoint':
        return this.state.savepoint(s.action, s.name);
    }
  }

  /** A SET's assignments: `autocommit` among them switches the transaction's mode. */
  async set(vars: [string, string | number | null][]): Promise<void> {
    for (const [k, v] of vars) {
      if (k !== 'autocommit') continue;
      const on = autocommitValue(v);
      if (on === null) throw new SqlError(1231, `Variable 'autocommit' can't be set to the value of '${v}'`);
      await this.state.setAutocommit(on);
    }
  }

  /** The connection ends (close, KILL, server stop) or is reset: roll back, autocommit on again. */
  async reset(): Promise<void> {
    try {
      await this.state.end(false);
    } finally {
      await this.state.setAutocommit(true);
    }
  }
}
