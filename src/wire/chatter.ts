/**
 * What MySQL drivers and tools ask a server on connect and between statements (system
 * variables, the connection's own functions, SET, SHOW VARIABLES / COLLATION / CHARACTER SET,
 * transactions), answered as a MySQL 8 server would. Pure: the session's state comes in, an
 * answer (or null: a real statement for the engine) goes out; test/unit/wire/chatter.test.ts
 * holds the statements real clients send.
 */
import { stringLiteral } from '../core/sql-text.js';
import type { FieldInfo } from '../core/types.js';
import type { StatementPrincipal } from '../sql/engine-types.js';
import { principalFunction } from '../sql/principal-values.js';
import { type TransactionStatement, transactionStatement } from './transaction.js';

export interface SessionInfo {
  db: string | null;
  user: string;
  /** The client's address, as USER() shows it (`user@host`). */
  host: string;
  connectionId: number;
  serverVersion: string;
  productVersion: string;
  port: number;
  tls: boolean;
  readOnly: boolean;
  /** Session variables set with SET (lower-case names). */
  vars: Map<string, VarValue>;
  /** Who the connection's statements run as (CURRENT_USER(), CURRENT_GROUPS()). */
  principal?: StatementPrincipal;
}

/** A session variable's value (null: SQL NULL, as `SET character_set_results = NULL`). */
export type VarValue = string | number | null;

export type Answer =
  | { kind: 'ok' }
  | { kind: 'set'; vars: [string, VarValue][] }
  | { kind: 'rows'; columns: FieldInfo[]; rows: unknown[][] }
  | { kind: 'error'; code: number; message: string }
  | { kind: 'kill'; id: number; query: boolean }
  | { kind: 'show_create_table'; db: string | null; table: string }
  | { kind: 'show_index'; db: string | null; table: string }
  | { kind: 'transaction'; statement: TransactionStatement }
  | { kind: 'sql'; sql: string };

export const MAX_ALLOWED_PACKET = 64 * 1024 * 1024;

const SQL_MODE =
  'ONLY_FULL_GROUP_BY,STRICT_TRANS_TABLES,NO_ZERO_IN_DATE,NO_ZERO_DATE,ERROR_FOR_DIVISION_BY_ZERO,NO_ENGINE_SUBSTITUTION';

/** System variables with the values this server really has (UTC values, utf8mb4; `autocommit` as SET). */
export function variables(s: SessionInfo): Map<string, VarValue> {
  const on = (b: boolean) => (b ? 1 : 0);
  const v = new Map<string, VarValue>([
    ['auto_increment_increment', 1],
    ['auto_increment_offset', 1],
    ['autocommit', 1],
    ['character_set_client', 'utf8mb4'],
    ['character_set_connection', 'utf8mb4'],
    ['character_set_database', 'utf8mb4'],
    ['character_set_filesystem', 'binary'],
    ['character_set_results', 'utf8mb4'],
    ['character_set_server', 'utf8mb4'],
    ['character_set_system', 'utf8mb3'],
    ['collation_connection', 'utf8mb4_general_ci'],
    ['collation_database', 'utf8mb4_general_ci'],
    ['collation_server', 'utf8mb4_general_ci'],
    ['default_authentication_plugin', 'caching_sha2_password'],
    ['div_precision_increment', 4],
    // No events run here (DBeaver and Superset ask).
    ['event_scheduler', 'OFF'],
    ['explicit_defaults_for_timestamp', 1],
    ['group_concat_max_len', 1024],
    ['have_ssl', s.tls ? 'YES' : 'DISABLED'],
    ['have_openssl', s.tls ? 'YES' : 'DISABLED'],
    ['hostname', 'tributary'],
    ['init_connect', ''],
    ['interactive_timeout', 28800],
    ['language', '/usr/share/mysql/english/'],
    ['lc_time_names', 'en_US'],
    ['license', 'Apache-2.0'],
    ['lower_case_file_system', 0],
    ['lower_case_table_names', 0],
    ['max_allowed_packet', MAX_ALLOWED_PACKET],
    ['max_connections', 1000],
    ['max_execution_time', 0],
    ['net_buffer_length', 16384],
    ['net_read_timeout', 30],
    ['net_write_timeout', 60],
    ['performance_schema', 0],
    ['port', s.port],
    ['protocol_version', 10],
    ['query_cache_size', 0],
    ['query_cache_type', 'OFF'],
    ['read_only', on(s.readOnly)],
    ['sql_auto_is_null', 0],
    ['sql_mode', SQL_MODE],
    ['sql_require_primary_key', 0],
    ['sql_safe_updates', 0],
    ['sql_select_limit', '18446744073709551615'],
    ['system_time_zone', 'UTC'],
    ['time_zone', '+00:00'],
    ['transaction_isolation', 'REPEATABLE-READ'],
    ['transaction_read_only', on(s.readOnly)],
    ['tx_isolation', 'REPEATABLE-READ'],
    ['tx_read_only', on(s.readOnly)],
    ['version', s.serverVersion],
    ['version_comment', `Tributary ${s.productVersion}`],
    ['version_compile_machine', process.arch === 'arm64' ? 'aarch64' : 'x86_64'],
    ['version_compile_os', 'Linux'],
    ['wait_timeout', 28800],
  ]);
  for (const [k, val] of s.vars) if (v.has(k)) v.set(k, val);
  return v;
}

const BOOL_VARS = new Set([
  'autocommit',
  'explicit_defaults_for_timestamp',
  'lower_case_file_system',
  'performance_schema',
  'read_only',
  'sql_auto_is_null',
  'sql_require_primary_key',
  'sql_safe_updates',
  'transaction_read_only',
  'tx_read_only',
]);

const COLLATIONS: [string, string, number, boolean][] = [
  ['utf8mb4_general_ci', 'utf8mb4', 45, false],
  ['utf8mb4_bin', 'utf8mb4', 46, false],
  ['utf8mb4_unicode_ci', 'utf8mb4', 224, false],
  ['utf8mb4_0900_ai_ci', 'utf8mb4', 255, true],
  ['utf8mb4_0900_bin', 'utf8mb4', 309, false],
  ['utf8mb3_general_ci', 'utf8mb3', 33, true],
  ['utf8mb3_bin', 'utf8mb3', 83, false],
  ['latin1_swedish_ci', 'latin1', 8, true],
  ['latin1_bin', 'latin1', 47, false],
  ['ascii_general_ci', 'ascii', 11, true],
  ['binary', 'binary', 63, true],
];

const CHARSETS: [string, string, string, number][] = [
  ['ascii', 'US ASCII', 'ascii_general_ci', 1],
  ['binary', 'Binary pseudo charset', 'binary', 1],
  ['latin1', 'cp1252 West European', 'latin1_swedish_ci', 1],
  ['utf8mb3', 'UTF-8 Unicode', 'utf8mb3_general_ci', 3],
  ['utf8mb4', 'UTF-8 Unicode', 'utf8mb4_0900_ai_ci', 4],
];

const v = (name: string): FieldInfo => ({ name, type: 'VARCHAR' });
const n = (name: string): FieldInfo => ({ name, type: 'BIGINT' });

/** Leading comments and trailing semicolons off (`/* mysql-connector-j ... *\/ SELECT ...`). */
export function bare(sql: string): string {
  let s = sql.trim();
  for (;;) {
    if (s.startsWith('/*') && !s.startsWith('/*!')) {
      const end = s.indexOf('*/');
      if (end < 0) return s;
      s = s.slice(end + 2).trimStart();
    } else if (/^(--\s|#)/.test(s)) {
      const nl = s.indexOf('\n');
      if (nl < 0) return '';
      s = s.slice(nl + 1).trimStart();
    } else break;
  }
  return s.replace(/[;\s]+$/, '');
}

/** A SQL LIKE pattern as a case-insensitive regular expression. */
export function likeRegex(pattern: string): RegExp {
  let re = '';
  for (let i = 0; i < pattern.length; i++) {
    const c = pattern[i];
    if (c === '\\' && i + 1 < pattern.length) re += escapeRe(pattern[++i]);
    else if (c === '%') re += '.*';
    else if (c === '_') re += '.';
    else re += escapeRe(c);
  }
  return new RegExp(`^${re}$`, 'is');
}

function escapeRe(c: string): string {
  return c.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

function unquote(s: string): string {
  const q = s[0];
  if ((q === "'" || q === '"') && s.endsWith(q)) return s.slice(1, -1).replace(/\\(.)/g, '$1');
  return s;
}

/**
 * A SHOW filter: `LIKE 'pat'`, or a WHERE of `col = 'x'` / `col LIKE 'x'` / `col IN (...)`
 * terms (what drivers send), true when any OR-branch's terms all hold.
 */
function showFilter(rest: string, columns: string[]): ((row: unknown[]) => boolean) | 'bad' {
  const r = rest.trim();
  if (r === '') return () => true;
  const like = /^LIKE\s+('(?:[^'\\]|\\.)*'|"(?:[^"\\]|\\.)*")$/i.exec(r);
  if (like) {
    const re = likeRegex(unquote(like[1]));
    return (row) => re.test(String(row[0]));
  }
  const where = /^WHERE\s+([\s\S]+)$/i.exec(r);
  if (!where) return 'bad';
  const branches = where[1].split(/\s+OR\s+/i).map((b) => b.split(/\s+AND\s+/i));
  const term =
    /^\(?\s*`?(\w+)`?\s*(=|LIKE|IN)\s*(\(\s*(?:'[^']*'\s*,?\s*)+\)|'(?:[^'\\]|\\.)*'|"(?:[^"\\]|\\.)*")\s*\)?$/i;
  const tests: ((row: unknown[]) => boolean)[][] = [];
  for (const b of branches) {
    const ts: ((row: unknown[]) => boolean)[] = [];
    for (const t of b) {
      const m = term.exec(t.trim());
      if (!m) return 'bad';
      const col = columns.findIndex((c) => c.toLowerCase() === m[1].toLowerCase());
      if (col < 0) return 'bad';
      const op = m[2].toUpperCase();
      if (op === 'IN') {
        const set = new Set([...m[3].matchAll(/'([^']*)'/g)].map((x) => x[1].toLowerCase()));
        ts.push((row) => set.has(String(row[col]).toLowerCase()));
      } else {
        const re = op === 'LIKE' ? likeRegex(unquote(m[3])) : likeRegex(escapeLike(unquote(m[3])));
        ts.push((row) => re.test(String(row[col])));
      }
    }
    tests.push(ts);
  }
  return (row) => tests.some((ts) => ts.every((t) => t(row)));
}

function escapeLike(s: string): string {
  return s.replace(/[\\%_]/g, '\\$&');
}

function filtered(columns: FieldInfo[], rows: unknown[][], rest: string, what: string): Answer {
  const f = showFilter(
    rest,
    columns.map((c) => c.name),
  );
  if (f === 'bad')
    return {
      kind: 'error',
      code: 1064,
      message: `Syntax error: unsupported filter in SHOW ${what}: '${rest}'`,
    };
  return { kind: 'rows', columns, rows: rows.filter(f) };
}

function showValue(name: string, val: VarValue): string {
  if (BOOL_VARS.has(name)) return val === 1 || val === '1' || val === 'ON' ? 'ON' : 'OFF';
  return val === null ? '' : String(val);
}

/** One item of a SELECT list of variables and connection functions; undefined when it is not one. */
function selectItem(
  expr: string,
  s: SessionInfo,
  vars: Map<string, VarValue>,
): Answer | [unknown, FieldInfo['type']] | undefined {
  const sys = /^@@(?:(session|global|local)\.)?`?(\w+)`?$/i.exec(expr);
  if (sys) {
    const name = sys[2].toLowerCase();
    if (!vars.has(name)) return { kind: 'error', code: 1193, message: `Unknown system variable '${sys[2]}'` };
    const val = vars.get(name)!;
    return [val, typeof val === 'number' ? 'BIGINT' : 'VARCHAR'];
  }
  const fn = /^(\w+)\s*\(\s*\)$/.exec(expr);
  return fn ? sessionFunction(fn[1], s) : undefined;
}

/** The value and type of a function of the connection (`USER()`); undefined for any other name. */
export function sessionFunction(name: string, s: SessionInfo): [unknown, FieldInfo['type']] | undefined {
  switch (name.toUpperCase()) {
    case 'DATABASE':
    case 'SCHEMA':
      return [s.db, 'VARCHAR'];
    case 'USER':
    case 'SESSION_USER':
    case 'SYSTEM_USER':
      return [`${s.user}@${s.host}`, 'VARCHAR'];
    case 'CURRENT_USER':
    case 'CURRENT_GROUPS':
      // The account the statements run as: one rule for every face (sql/principal-values.ts).
      return [principalFunction(name, s.principal ?? { user: s.user, groups: [], admin: false }), 'VARCHAR'];
    case 'CONNECTION_ID':
      return [s.connectionId, 'BIGINT'];
    case 'VERSION':
      return [s.serverVersion, 'VARCHAR'];
    case 'LAST_INSERT_ID':
    case 'ROW_COUNT':
    case 'FOUND_ROWS':
      return [0, 'BIGINT'];
    default:
      return undefined;
  }
}

/** Split a SELECT list at top-level commas (none of our items holds a comma inside quotes). */
function splitList(list: string): string[] {
  const out: string[] = [];
  let depth = 0;
  let cur = '';
  let quote = '';
  for (const c of list) {
    if (quote) {
      if (c === quote) quote = '';
    } else if (c === "'" || c === '"' || c === '`') quote = c;
    else if (c === '(') depth++;
    else if (c === ')') depth--;
    else if (c === ',' && depth === 0) {
      out.push(cur.trim());
      cur = '';
      continue;
    }
    cur += c;
  }
  out.push(cur.trim());
  return out;
}

function selectVariables(body: string, s: SessionInfo): Answer | null {
  // Statements with FROM (every real query) leave at the cheapest test.
  if (/\bFROM\b/i.test(body)) return null;
  const m = /^SELECT\s+([\s\S]+?)(?:\s+LIMIT\s+(\d+))?$/i.exec(body);
  if (!m) return null;
  const vars = variables(s);
  const columns: FieldInfo[] = [];
  const row: unknown[] = [];
  for (const item of splitList(m[1])) {
    const a = /^([\s\S]+?)(?:\s+(?:AS\s+)?(`[^`]+`|'[^']+'|"[^"]+"|\w+))?$/i.exec(item);
    if (!a) return null;
    const got = selectItem(a[1].trim(), s, vars);
    if (got === undefined) return null;
    if (!Array.isArray(got)) return got;
    const alias = a[2] ? a[2].replace(/^[`'"]|[`'"]$/g, '') : a[1].trim();
    columns.push({ name: alias, type: got[1] });
    row.push(got[0]);
  }
  const limit = m[2] === undefined ? 1 : Number(m[2]);
  return { kind: 'rows', columns, rows: limit > 0 ? [row] : [] };
}

/** `SET a = 1, @@session.b = 'x', NAMES utf8mb4`: the assignments to remember. */
function parseSet(body: string): Answer {
  const rest = body.replace(/^SET\s+/i, '');
  // The statements after it are bytes in this set, and results are written in it (session.ts).
  const names = /^(NAMES|CHARACTER\s+SET|CHARSET)\s+(['"`]?)(\w+)\2/i.exec(rest);
  if (names) {
    const cs = names[3].toLowerCase() === 'default' ? 'utf8mb4' : names[3].toLowerCase();
    // SET CHARACTER SET leaves character_set_connection to the database's set (utf8mb4).
    const connection = /^NAMES$/i.test(names[1]) ? cs : 'utf8mb4';
    return {
      kind: 'set',
      vars: [
        ['character_set_client', cs],
        ['character_set_connection', connection],
        ['character_set_results', cs],
      ],
    };
  }
  if (/^(SESSION\s+|GLOBAL\s+)?(TRANSACTION|CHARACTER\s+SET|CHARSET)\b/i.test(rest)) return { kind: 'ok' };
  if (/^NAMES\b/i.test(rest)) return { kind: 'ok' };
  const vars: [string, VarValue][] = [];
  for (const part of splitList(rest)) {
    const m = /^(?:(?:SESSION|LOCAL)\s+|@@(?:session\.|local\.)?)?`?(@?\w+)`?\s*:?=\s*([\s\S]+)$/i.exec(part);
    if (!m) continue;
    if (m[1].startsWith('@')) continue;
    const raw = m[2].trim();
    const val = /^NULL$/i.test(raw)
      ? null
      : /^-?\d+$/.test(raw)
        ? Number(raw)
        : /^(ON|TRUE)$/i.test(raw)
          ? 1
          : /^(OFF|FALSE)$/i.test(raw)
            ? 0
            : unquote(raw);
    vars.push([m[1].toLowerCase(), val]);
  }
  return { kind: 'set', vars };
}

function tableRef(t: string): { db: string | null; table: string } {
  const parts = t.split('.').map((p) => p.replace(/^`|`$/g, '').replace(/``/g, '`'));
  return parts.length > 1 ? { db: parts[0], table: parts[1] } : { db: null, table: parts[0] };
}

const NAME = '(`(?:[^`]|``)+`|[\\w$]+)';

/** The answer to `sql` when it is connection chatter; null when the engine should run it. */
export function chatter(sql: string, s: SessionInfo): Answer | null {
  const body = bare(sql);
  const head = /^\w+/.exec(body)?.[0]?.toUpperCase();
  switch (head) {
    case 'SELECT':
      return selectVariables(body, s);
    case 'SET':
      // A server-wide SET changes nothing here: read-only mode says so (1290), as the engine does.
      if (
        s.readOnly &&
        /^SET\s+(GLOBAL|PERSIST|PERSIST_ONLY)\b|^SET\s+@@(GLOBAL|PERSIST|PERSIST_ONLY)\./i.test(body)
      )
        return {
          kind: 'error',
          code: 1290,
          message: 'The server is in read-only mode: SET GLOBAL / PERSIST is refused',
        };
      return parseSet(body);
    case 'BEGIN':
    case 'COMMIT':
    case 'ROLLBACK':
    case 'START':
    case 'SAVEPOINT':
    case 'RELEASE': {
      // The connection's transaction (transaction.ts) runs them.
      const statement = transactionStatement(body);
      if (statement) return { kind: 'transaction', statement };
      // Any other form of these is not one MySQL knows either (the engine would answer that
      // transactions need the MySQL protocol, which this is).
      if (head === 'START' && !/^START\s+TRANSACTION\b/i.test(body)) return null;
      if (head === 'RELEASE' && !/^RELEASE\s+SAVEPOINT\b/i.test(body)) return null;
      return {
        kind: 'error',
        code: 1064,
        message: `You have an error in your SQL syntax near '${body}': transaction statements are START TRANSACTION, BEGIN, COMMIT | ROLLBACK [AND [NO] CHAIN] [[NO] RELEASE] (not CHAIN with RELEASE), SAVEPOINT, ROLLBACK TO, RELEASE SAVEPOINT`,
      };
    }
    case 'KILL': {
      const k = /^KILL\s+(QUERY\s+|CONNECTION\s+)?(\d+)$/i.exec(body);
      if (!k) return null;
      return { kind: 'kill', id: Number(k[2]), query: /^QUERY/i.test(k[1] ?? '') };
    }
    case 'SHOW':
      return show(body, s);
    default:
      return null;
  }
}

function show(body: string, s: SessionInfo): Answer | null {
  const vars = /^SHOW\s+(?:SESSION\s+|GLOBAL\s+|LOCAL\s+)?VARIABLES\b\s*([\s\S]*)$/i.exec(body);
  if (vars) {
    const rows = [...variables(s)].map(([k, val]) => [k, showValue(k, val)]);
    return filtered([v('Variable_name'), v('Value')], rows, vars[1], 'VARIABLES');
  }
  const status = /^SHOW\s+(?:SESSION\s+|GLOBAL\s+)?STATUS\b\s*([\s\S]*)$/i.exec(body);
  if (status) {
    const rows = [
      ['Threads_connected', '1'],
      ['Ssl_cipher', s.tls ? 'TLS_AES_256_GCM_SHA384' : ''],
      ['Ssl_version', s.tls ? 'TLSv1.3' : ''],
    ];
    return filtered([v('Variable_name'), v('Value')], rows, status[1], 'STATUS');
  }
  const coll = /^SHOW\s+COLLATION\b\s*([\s\S]*)$/i.exec(body);
  if (coll) {
    const rows = COLLATIONS.map(([name, cs, id, def]) => [
      name,
      cs,
      id,
      def ? 'Yes' : '',
      'Yes',
      1,
      'PAD SPACE',
    ]);
    const cols = [
      v('Collation'),
      v('Charset'),
      n('Id'),
      v('Default'),
      v('Compiled'),
      n('Sortlen'),
      v('Pad_attribute'),
    ];
    return filtered(cols, rows, coll[1], 'COLLATION');
  }
  const cs = /^SHOW\s+(?:CHARACTER\s+SET|CHARSET)\b\s*([\s\S]*)$/i.exec(body);
  if (cs) {
    const cols = [v('Charset'), v('Description'), v('Default collation'), n('Maxlen')];
    return filtered(
      cols,
      CHARSETS.map((r) => [...r]),
      cs[1],
      'CHARACTER SET',
    );
  }
  if (/^SHOW\s+(WARNINGS|ERRORS)\b/i.test(body))
    return { kind: 'rows', columns: [v('Level'), n('Code'), v('Message')], rows: [] };
  const tableStatusQuery = tableStatus(body, s);
  if (tableStatusQuery) return tableStatusQuery;
  const grants = /^SHOW\s+GRANTS(?:\s+FOR\s+([\s\S]+))?$/i.exec(body);
  if (grants) {
    const who = `\`${s.user}\`@\`%\``;
    const privileges = s.readOnly ? 'SELECT, SHOW DATABASES, SHOW VIEW' : 'ALL PRIVILEGES';
    return {
      kind: 'rows',
      columns: [v(`Grants for ${s.user}@%`)],
      rows: [[`GRANT ${privileges} ON *.* TO ${who}`]],
    };
  }
  if (/^SHOW\s+PLUGINS$/i.test(body))
    return {
      kind: 'rows',
      columns: [v('Name'), v('Status'), v('Type'), v('Library'), v('License')],
      rows: [
        ['mysql_native_password', 'ACTIVE', 'AUTHENTICATION', null, 'Apache-2.0'],
        ['caching_sha2_password', 'ACTIVE', 'AUTHENTICATION', null, 'Apache-2.0'],
      ],
    };
  const schemas = /^SHOW\s+SCHEMAS\b([\s\S]*)$/i.exec(body);
  if (schemas) return { kind: 'sql', sql: `SHOW DATABASES${schemas[1]}` };
  const create = new RegExp(`^SHOW\\s+CREATE\\s+TABLE\\s+(${NAME}(?:\\.${NAME})?)$`, 'i').exec(body);
  if (create) return { kind: 'show_create_table', ...tableRef(create[1]) };
  const index = new RegExp(
    `^SHOW\\s+(?:INDEX|INDEXES|KEYS)\\s+(?:FROM|IN)\\s+(${NAME}(?:\\.${NAME})?)(?:\\s+(?:FROM|IN)\\s+(${NAME}))?(?:\\s+WHERE[\\s\\S]*)?$`,
    'i',
  ).exec(body);
  if (index) {
    const ref = tableRef(index[1]);
    return { kind: 'show_index', db: index[4] ? tableRef(index[4]).table : ref.db, table: ref.table };
  }
  return null;
}

/** SHOW TABLE STATUS columns and the information_schema.TABLES column each comes from. */
const TABLE_STATUS: [string, string][] = [
  ['Name', 'TABLE_NAME'],
  ['Engine', 'ENGINE'],
  ['Version', 'VERSION'],
  ['Row_format', 'ROW_FORMAT'],
  ['Rows', 'TABLE_ROWS'],
  ['Avg_row_length', 'AVG_ROW_LENGTH'],
  ['Data_length', 'DATA_LENGTH'],
  ['Max_data_length', 'MAX_DATA_LENGTH'],
  ['Index_length', 'INDEX_LENGTH'],
  ['Data_free', 'DATA_FREE'],
  ['Auto_increment', 'AUTO_INCREMENT'],
  ['Create_time', 'CREATE_TIME'],
  ['Update_time', 'UPDATE_TIME'],
  ['Check_time', 'CHECK_TIME'],
  ['Collation', 'TABLE_COLLATION'],
  ['Checksum', 'CHECKSUM'],
  ['Create_options', 'CREATE_OPTIONS'],
  ['Comment', 'TABLE_COMMENT'],
];

/** `SHOW TABLE STATUS [FROM db] [LIKE .. | WHERE ..]` as a query of information_schema.TABLES. */
function tableStatus(body: string, s: SessionInfo): Answer | null {
  const m = new RegExp(
    `^SHOW\\s+TABLE\\s+STATUS(?:\\s+(?:FROM|IN)\\s+${NAME})?(?:\\s+(LIKE|WHERE)\\s+([\\s\\S]+))?$`,
    'i',
  ).exec(body);
  if (!m) return null;
  const db = m[1] ? tableRef(m[1]).table : s.db;
  if (!db)
    return { kind: 'error', code: 1046, message: 'No database selected: SHOW TABLE STATUS FROM <source>' };
  const list = TABLE_STATUS.map(([as, col]) => `${col} AS \`${as}\``).join(', ');
  let sql = `SELECT ${list} FROM information_schema.TABLES WHERE TABLE_SCHEMA = ${stringLiteral('mysql', db)}`;
  if (m[2]?.toUpperCase() === 'LIKE') sql += ` AND TABLE_NAME LIKE ${m[3]}`;
  sql += ' ORDER BY TABLE_NAME';
  if (m[2]?.toUpperCase() === 'WHERE') sql = `SELECT * FROM (${sql}) AS status WHERE ${m[3]}`;
  return { kind: 'sql', sql };
}
