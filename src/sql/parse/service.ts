import { ErrorCode, SqlError } from '../../core/errors.js';
import { parseKbStatement } from './kb-statements.js';
import { isKeyword, isName, LexError, type Token, tokenize } from './lexer.js';
import { parseProcessStatement } from './process-statements.js';
import type { ShowCondition, Statement, TableName } from './statement.js';

/**
 * Our own small grammar for the statements node-sql-parser does not know (docs/reference/sql.md):
 * CREATE/DROP DATABASE, SHOW DATABASES|TABLES|COLUMNS|ENGINES, DESCRIBE, USE, SET.
 * Returns null for anything else, which then goes to node-sql-parser.
 */
export function parseServiceStatement(sql: string): Statement | null {
  let tokens: Token[];
  try {
    tokens = tokenize(sql, { json: true });
  } catch (e) {
    if (e instanceof LexError) throw new SqlError(ErrorCode.SYNTAX, `Syntax error: ${e.message}`);
    throw e;
  }
  while (
    tokens.length &&
    tokens[tokens.length - 1].kind === 'punct' &&
    tokens[tokens.length - 1].value === ';'
  )
    tokens.pop();
  if (tokens.length === 0) throw new SqlError(ErrorCode.SYNTAX, 'Syntax error: empty query');
  const kb = parseKbStatement(tokens, sql);
  if (kb) return kb;
  const process = parseProcessStatement(tokens);
  if (process) return process;
  const c = new Cursor(tokens, sql);
  const first = tokens[0];
  if (isKeyword(first, 'CREATE') && isKeyword(tokens[1], 'DATABASE', 'SCHEMA')) return c.createDatabase();
  if (isKeyword(first, 'DROP') && isKeyword(tokens[1], 'DATABASE', 'SCHEMA')) return c.dropDatabase();
  if (isKeyword(first, 'SHOW')) return c.show();
  if (isKeyword(first, 'DESCRIBE', 'DESC') && tokens.length > 1) return c.describe();
  if (isKeyword(first, 'USE')) return c.use();
  if (isKeyword(first, 'SET')) return setStatement(tokens);
  if (isKeyword(first, 'UNLOCK') && isKeyword(tokens[1], 'TABLES', 'TABLE')) return { kind: 'noop' };
  if (isKeyword(first, 'LOCK') && isKeyword(tokens[1], 'TABLES', 'TABLE')) return lockTables(tokens);
  if (isKeyword(first, 'DROP') && isKeyword(tokens[1], 'TABLE')) return c.dropTable();
  if (isTransactionStatement(tokens)) throw noTransactions();
  return null;
}

/** START TRANSACTION, BEGIN, COMMIT, ROLLBACK, SAVEPOINT, RELEASE SAVEPOINT (the MySQL listener's own). */
function isTransactionStatement(tokens: Token[]): boolean {
  const [t0, t1] = tokens;
  if (isKeyword(t0, 'START')) return isKeyword(t1, 'TRANSACTION');
  if (isKeyword(t0, 'RELEASE')) return isKeyword(t1, 'SAVEPOINT');
  return isKeyword(t0, 'BEGIN', 'COMMIT', 'ROLLBACK', 'SAVEPOINT');
}

/**
 * Here (HTTP, MCP, the CLI) each statement commits on its own: a transaction statement says
 * so rather than answering a syntax error or an ok that would promise a rollback.
 */
function noTransactions(): SqlError {
  return new SqlError(
    ErrorCode.NOT_SUPPORTED,
    'Transactions are not supported here: each statement commits on its own. Connect a MySQL client to the MySQL listener (api.mysql.port, 47335 by default) for START TRANSACTION, COMMIT and ROLLBACK',
  );
}

/**
 * SET changes nothing here (session variables live in the faces); a server-wide one
 * (`SET GLOBAL`, `SET PERSIST`, `SET @@global.x`) is told apart, so read-only mode refuses
 * it (1290) rather than answering that it worked.
 */
function setStatement(tokens: Token[]): Statement {
  const t1 = tokens[1];
  const global =
    isKeyword(t1, 'GLOBAL', 'PERSIST', 'PERSIST_ONLY') ||
    (t1?.kind === 'punct' &&
      t1.value === '@' &&
      tokens[2]?.value === '@' &&
      isKeyword(tokens[3], 'GLOBAL', 'PERSIST', 'PERSIST_ONLY'));
  return { kind: global ? 'set_global' : 'noop' };
}

/**
 * `LOCK TABLES t READ [LOCAL], ...` (mariadb-dump sends it) is accepted and holds nothing:
 * sources are read statement by statement, and a dump reads each table in one statement.
 * A WRITE lock would promise what no source here gives: 1235.
 */
function lockTables(tokens: Token[]): Statement {
  if (tokens.some((t) => isKeyword(t, 'WRITE')))
    throw new SqlError(
      ErrorCode.NOT_SUPPORTED,
      'LOCK TABLES ... WRITE is not supported: sources are not locked through this server (READ locks are accepted and hold nothing)',
    );
  return { kind: 'noop' };
}

class Cursor {
  private i = 0;
  constructor(
    private readonly t: Token[],
    private readonly sql: string,
  ) {}

  private peek(k = 0): Token | undefined {
    return this.t[this.i + k];
  }
  private fail(what: string): never {
    const tok = this.peek();
    const near = tok ? `near '${this.sql.slice(tok.start, tok.start + 40)}'` : 'at end of statement';
    throw new SqlError(ErrorCode.SYNTAX, `Syntax error: expected ${what} ${near}`);
  }
  private kw(...words: string[]): boolean {
    if (isKeyword(this.peek(), ...words)) {
      this.i++;
      return true;
    }
    return false;
  }
  private expectKw(...words: string[]): void {
    if (!this.kw(...words)) this.fail(words.join(' or '));
  }
  private punct(p: string): boolean {
    const tok = this.peek();
    if (tok && tok.kind === 'punct' && tok.value === p) {
      this.i++;
      return true;
    }
    return false;
  }
  private name(what: string): string {
    const tok = this.peek();
    if (!isName(tok)) this.fail(what);
    this.i++;
    return tok.value;
  }
  private str(what: string): string {
    const tok = this.peek();
    if (!tok || (tok.kind !== 'string' && tok.kind !== 'ident' && tok.kind !== 'quoted')) this.fail(what);
    this.i++;
    return tok.value;
  }
  private end(): void {
    if (this.i < this.t.length) this.fail('end of statement');
  }
  private ifExists(): boolean {
    if (this.kw('IF')) {
      this.expectKw('EXISTS');
      return true;
    }
    return false;
  }
  private ifNotExists(): boolean {
    if (this.kw('IF')) {
      this.expectKw('NOT');
      this.expectKw('EXISTS');
      return true;
    }
    return false;
  }
  private like(): string | null {
    if (this.kw('LIKE')) {
      const tok = this.peek();
      if (tok?.kind !== 'string') this.fail('a quoted pattern after LIKE');
      this.i++;
      return tok.value;
    }
    return null;
  }
  /** `WHERE col = 'x' [AND col LIKE 'y' ...]` after a SHOW; null without WHERE. */
  private where(): ShowCondition[] | null {
    if (!this.kw('WHERE')) return null;
    const out: ShowCondition[] = [];
    do {
      const column = this.name('a column of the SHOW result');
      let op: ShowCondition['op'];
      const t = this.peek();
      if (this.kw('LIKE')) op = 'LIKE';
      else if (this.kw('NOT')) {
        this.expectKw('LIKE');
        op = 'NOT LIKE';
      } else if (t?.kind === 'punct' && t.value === '=') {
        this.i++;
        op = '=';
      } else if (
        t?.kind === 'punct' &&
        (t.value === '<' || t.value === '!') &&
        this.peek(1)?.value === (t.value === '<' ? '>' : '=')
      ) {
        this.i += 2;
        op = '<>';
      } else this.fail("=, <>, != or LIKE (SHOW ... WHERE takes column = 'text' conditions joined by AND)");
      const v = this.peek();
      if (v?.kind !== 'string') this.fail('a quoted value');
      this.i++;
      out.push({ column, op, value: v.value });
    } while (this.kw('AND'));
    return out;
  }

  private tableName(): TableName {
    const parts = [this.name('a table name')];
    while (this.punct('.')) parts.push(this.name('a name after "."'));
    if (parts.length > 3) this.fail('at most source.schema.table');
    if (parts.length === 1) return { db: null, schema: null, table: parts[0] };
    if (parts.length === 2) return { db: parts[0], schema: null, table: parts[1] };
    return { db: parts[0], schema: parts[1], table: parts[2] };
  }

  createDatabase(): Statement {
    this.i += 2;
    const ifNotExists = this.ifNotExists();
    const name = this.name('a database name');
    this.kw('WITH');
    let engine: string | null = null;
    let params: Record<string, unknown> | null = null;
    for (let n = 0; n < 2 && this.i < this.t.length; n++) {
      if (this.kw('ENGINE')) {
        this.punct('=');
        engine = this.str('an engine name');
      } else if (this.kw('PARAMETERS')) {
        this.punct('=');
        const tok = this.peek();
        if (tok?.kind !== 'json') this.fail('a JSON object after PARAMETERS');
        this.i++;
        try {
          const v = JSON.parse(tok.value);
          if (!v || typeof v !== 'object' || Array.isArray(v)) throw new Error('not an object');
          params = v;
        } catch (e) {
          throw new SqlError(
            ErrorCode.SYNTAX,
            `Syntax error: PARAMETERS of database '${name}' is not a valid JSON object: ${(e as Error).message}`,
          );
        }
      } else this.fail('ENGINE or PARAMETERS');
      this.punct(',');
    }
    this.end();
    if (!engine)
      throw new SqlError(
        ErrorCode.SYNTAX,
        `Syntax error: CREATE DATABASE '${name}' needs ENGINE = '<engine>'`,
      );
    return { kind: 'create_database', name, engine, params: params ?? {}, ifNotExists };
  }

  dropDatabase(): Statement {
    this.i += 2;
    const ifExists = this.ifExists();
    const name = this.name('a database name');
    this.end();
    return { kind: 'drop_database', name, ifExists };
  }

  dropTable(): Statement {
    this.i += 2;
    const ifExists = this.ifExists();
    const table = this.tableName();
    this.end();
    return { kind: 'drop_table', table, ifExists };
  }

  show(): Statement {
    this.i++;
    if (this.kw('DATABASES', 'SCHEMAS')) {
      const like = this.like();
      const where = like === null ? this.where() : null;
      this.end();
      return where ? { kind: 'show_databases', like, where } : { kind: 'show_databases', like };
    }
    if (this.kw('ENGINES')) {
      this.end();
      return { kind: 'show_engines' };
    }
    if (this.kw('CREATE')) {
      if (!this.kw('DATABASE', 'SCHEMA')) this.fail('DATABASE or TABLE after SHOW CREATE');
      if (this.kw('IF')) {
        this.expectKw('NOT');
        this.expectKw('EXISTS');
      }
      const name = this.name('a database name');
      this.end();
      return { kind: 'show_create_database', name };
    }
    if (this.kw('GRANTS')) return this.showGrants();
    const full = this.kw('FULL');
    if (this.kw('TABLES')) {
      let from: string | null = null;
      if (this.kw('FROM', 'IN')) from = this.name('a database name');
      const like = this.like();
      const where = like === null ? this.where() : null;
      this.end();
      return where
        ? { kind: 'show_tables', from, full, like, where }
        : { kind: 'show_tables', from, full, like };
    }
    if (this.kw('COLUMNS', 'FIELDS')) {
      this.expectKw('FROM', 'IN');
      const table = this.tableName();
      if (this.kw('FROM', 'IN')) {
        const db = this.name('a database name');
        if (table.db) table.schema = table.db;
        table.db = db;
      }
      const like = this.like();
      const where = like === null ? this.where() : null;
      this.end();
      return where
        ? { kind: 'show_columns', table, full, like, where }
        : { kind: 'show_columns', table, full, like };
    }
    this.fail('DATABASES, TABLES, COLUMNS, ENGINES or GRANTS after SHOW');
  }

  /** `SHOW GRANTS [FOR CURRENT_USER[()] | FOR user[@host]]`: `user` null for the caller. */
  private showGrants(): Statement {
    let user: string | null = null;
    if (this.kw('FOR')) {
      if (this.kw('CURRENT_USER')) {
        if (this.punct('(')) {
          if (!this.punct(')')) this.fail("')'");
        }
      } else {
        user = this.str('a user name after SHOW GRANTS FOR');
        // `'u'@'host'`: the host is not part of a principal here.
        while (this.i < this.t.length) this.i++;
      }
    }
    this.end();
    return { kind: 'show_grants', user };
  }

  describe(): Statement {
    this.i++;
    const table = this.tableName();
    this.end();
    return { kind: 'describe', table };
  }

  use(): Statement {
    this.i++;
    const name = this.name('a database name');
    this.end();
    return { kind: 'use', name };
  }
}
