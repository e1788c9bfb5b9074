import { ErrorCode, SqlError } from '../core/errors.js';

/*
 * The last check before read-only SQL text leaves for a source (api.mcp.read_only, or a
 * source created with read_only: true). The engine has already refused anything but reads
 * by statement kind, and each source also runs the text in its own read-only mode; this
 * check covers what a read-only transaction does not stop: functions with side effects
 * outside the database (files, locks, other servers, sleeping) and text that would end the
 * read-only transaction (a second statement, SET, COMMIT).
 */

/** The first word a read may start with. */
const READ_START = new Set(['select', 'with', 'values', 'table', 'explain', 'show', 'describe']);

/**
 * Functions refused in read-only mode, any source: they read or write server files, reach
 * other servers, take locks, change settings or sleep (a denial of service a read-only
 * transaction does not prevent).
 */
const REFUSED_FUNCTIONS = new Set([
  // PostgreSQL
  'pg_read_file',
  'pg_read_binary_file',
  'pg_ls_dir',
  'pg_stat_file',
  'pg_ls_logdir',
  'pg_ls_waldir',
  'pg_ls_tmpdir',
  'lo_import',
  'lo_export',
  'lo_from_bytea',
  'lo_put',
  'lo_create',
  'lo_creat',
  'lo_unlink',
  'dblink',
  'dblink_exec',
  'dblink_connect',
  'dblink_send_query',
  'set_config',
  'pg_sleep',
  'pg_sleep_for',
  'pg_sleep_until',
  'pg_terminate_backend',
  'pg_cancel_backend',
  'pg_reload_conf',
  'pg_rotate_logfile',
  'pg_advisory_lock',
  'pg_advisory_xact_lock',
  'pg_advisory_lock_shared',
  'pg_try_advisory_lock',
  'pg_notify',
  'nextval',
  'setval',
  'txid_current',
  'pg_current_xact_id',
  'query_to_xml',
  'query_to_json',
  // MySQL / MariaDB
  'load_file',
  'sleep',
  'benchmark',
  'get_lock',
  'release_lock',
  'release_all_locks',
  'is_used_lock',
  'master_pos_wait',
  'source_pos_wait',
  'master_gtid_wait',
  'sys_exec',
  'sys_eval',
  'lastval',
  // SQLite / DuckDB
  'load_extension',
  'readfile',
  'writefile',
  'fts3_tokenizer',
  'read_csv',
  'read_csv_auto',
  'read_parquet',
  'parquet_scan',
  'read_json',
  'read_json_auto',
  'read_ndjson',
  'read_ndjson_auto',
  'read_text',
  'read_blob',
  'glob',
  'sniff_csv',
  'query',
  'query_table',
]);

/** Clauses that write a file or take row locks. */
const REFUSED_CLAUSES: [RegExp, string][] = [
  [/\binto\s+(outfile|dumpfile)\b/, 'SELECT ... INTO OUTFILE/DUMPFILE'],
  [/\bfor\s+(update|share|no\s+key\s+update|key\s+share)\b/, 'locking reads (FOR UPDATE / FOR SHARE)'],
  [/\block\s+in\s+share\s+mode\b/, 'locking reads (LOCK IN SHARE MODE)'],
];

export function readOnlyRefusal(source: string, what: string): SqlError {
  return new SqlError(ErrorCode.READ_ONLY, `Source '${source}' is in read-only mode: ${what} refused`);
}

/**
 * Throws 1290 naming `source` unless `sql` is one read statement free of side-effect
 * functions and clauses. Quoted identifiers count as names (`"pg_read_file"(...)` is a call
 * in PostgreSQL); string literals are blanked first, so values never trip the check.
 */
export function checkReadOnlySql(source: string, sql: string): void {
  // Whether a backslash escapes a quote depends on the source and its settings: the text
  // must pass read both ways, so no literal can hide a call from one reading.
  checkWords(source, words(sql, true));
  checkWords(source, words(sql, false));
}

function checkWords(source: string, text: string): void {
  const first = /^[\s(]*([a-z_]+)/.exec(text)?.[1];
  if (!first || !READ_START.has(first))
    throw readOnlyRefusal(source, `a statement starting with ${first ?? '?'}`);
  if (/;\s*\S/.test(text)) throw readOnlyRefusal(source, 'more than one statement');
  for (const m of text.matchAll(/([a-z_][a-z0-9_$]*)\s*\(/g)) {
    if (REFUSED_FUNCTIONS.has(m[1])) throw readOnlyRefusal(source, `function ${m[1].toUpperCase()}`);
  }
  for (const [re, what] of REFUSED_CLAUSES) if (re.test(text)) throw readOnlyRefusal(source, what);
}

/** Lower-case text with comments dropped, string literals emptied and identifier quotes removed. */
function words(sql: string, backslash: boolean): string {
  let out = '';
  const n = sql.length;
  for (let i = 0; i < n; ) {
    const c = sql[i];
    const next = sql[i + 1];
    if (c === "'") {
      i = skip(sql, i, "'", backslash);
      out += "''";
    } else if (c === '"' || c === '`' || c === '[') {
      const close = c === '[' ? ']' : c;
      const end = skip(sql, i, close, false);
      out += sql
        .slice(i + 1, end - 1)
        .replace(/\s+/g, '_')
        .toLowerCase();
      i = end;
    } else if ((c === '-' && next === '-') || c === '#') {
      while (i < n && sql[i] !== '\n') i++;
    } else if (c === '/' && next === '*') {
      const end = sql.indexOf('*/', i + 2);
      i = end < 0 ? n : end + 2;
      out += ' ';
    } else if (c === '$' && /^\$[a-zA-Z_]*\$/.test(sql.slice(i, i + 64))) {
      // PostgreSQL dollar quoting: a string literal too.
      const tag = /^\$[a-zA-Z_]*\$/.exec(sql.slice(i, i + 64))![0];
      const end = sql.indexOf(tag, i + tag.length);
      i = end < 0 ? n : end + tag.length;
      out += "''";
    } else {
      out += c.toLowerCase();
      i++;
    }
  }
  return out;
}

/** The index just past the quoted text opened at `i` (doubled quotes and backslashes escape). */
function skip(sql: string, i: number, close: string, backslash: boolean): number {
  for (let j = i + 1; j < sql.length; j++) {
    if (backslash && sql[j] === '\\') j++;
    else if (sql[j] === close) {
      if (sql[j + 1] === close) j++;
      else return j + 1;
    }
  }
  return sql.length;
}
