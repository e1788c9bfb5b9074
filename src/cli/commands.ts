/**
 * The command line's grammar: every command, its flags and its help text, in one table so
 * `--help`, `tributary help <command>` and the parser can never disagree. Loads no engine code.
 */
import { parseArgs } from 'node:util';
import { VERSION } from './version.js';

export interface FlagSpec {
  type: 'string' | 'boolean';
  short?: string;
  /** The value's placeholder in help (string flags). */
  arg?: string;
  help: string;
}

export interface CommandSpec {
  name: string;
  usage: string[];
  summary: string;
  flags: Record<string, FlagSpec>;
  /** Extra lines after the flags (examples, notes). */
  notes?: string;
}

/** A wrong command line: exit code 2 and a pointer to the command's help. */
export class UsageError extends Error {
  constructor(
    message: string,
    readonly command?: string,
  ) {
    super(message);
  }
}

const CONFIG: Record<string, FlagSpec> = {
  config: { type: 'string', arg: 'PATH', help: 'JSON config file (TRIBUTARY_CONFIG_PATH)' },
};
const HELP_FLAG: Record<string, FlagSpec> = {
  help: { type: 'boolean', short: 'h', help: 'show this help' },
};
const REMOTE: Record<string, FlagSpec> = {
  url: {
    type: 'string',
    arg: 'URL',
    help: 'talk to a running server, e.g. http://127.0.0.1:47334 (TRIBUTARY_URL)',
  },
  token: { type: 'string', arg: 'TOKEN', help: "that server's bearer token (TRIBUTARY_TOKEN)" },
};

export const COMMANDS: Record<string, CommandSpec> = {
  serve: {
    name: 'serve',
    usage: ['tributary [serve] [options]', 'tributary --mcp-stdio [options]'],
    summary: 'start the HTTP server (API + MCP), or serve MCP on stdin/stdout',
    flags: {
      host: { type: 'string', arg: 'HOST', help: 'listen address (TRIBUTARY_HTTP_HOST, api.http.host)' },
      port: { type: 'string', arg: 'PORT', help: 'listen port (TRIBUTARY_HTTP_PORT, api.http.port)' },
      ...CONFIG,
      demo: { type: 'boolean', help: "add a read-only 'demo' source with a small sample dataset" },
      'mcp-stdio': {
        type: 'boolean',
        help: 'serve MCP on stdin/stdout only (for MCP clients that spawn servers)',
      },
      ...HELP_FLAG,
      version: { type: 'boolean', short: 'v', help: 'print the version' },
    },
  },
  query: {
    name: 'query',
    usage: [
      'tributary query "<SQL>[; <SQL>...]" [options]',
      'tributary query -f FILE [options]',
      'tributary query - [options]        (SQL from stdin; also when stdin is a pipe)',
    ],
    summary: 'run statements in order and print their results',
    flags: {
      db: { type: 'string', arg: 'SOURCE', help: 'default database (as after USE SOURCE)' },
      file: { type: 'string', short: 'f', arg: 'FILE', help: "read the SQL from FILE ('-' for stdin)" },
      json: { type: 'boolean', help: 'print each result as one line of JSON (every row)' },
      csv: { type: 'boolean', help: 'print rows as CSV (RFC 4180, every row; NULL is an empty field)' },
      'max-rows': {
        type: 'string',
        arg: 'N',
        help: 'table output shows the first N rows, then counts the rest (default 200)',
      },
      ...REMOTE,
      ...CONFIG,
      demo: { type: 'boolean', help: "add the read-only 'demo' source (in-process only)" },
      ...HELP_FLAG,
    },
    notes: `Statements are separated by ';' and run in order with one session (USE sticks); the
first failing statement stops the run. Without --url the query runs in this process on the
storage dir (TRIBUTARY_STORAGE_DIR, default ~/.tributary).
Exit codes: 0 ok, 1 a statement failed, 2 wrong command line or configuration.
Examples:
  tributary query "SELECT * FROM demo.customers LIMIT 5" --demo
  tributary query -f report.sql --csv > report.csv
  tributary query --url http://127.0.0.1:47334 "SHOW DATABASES"`,
  },
  sql: {
    name: 'sql',
    usage: ['tributary sql [options]'],
    summary: 'interactive SQL shell (multi-line statements, USE, history)',
    flags: {
      db: { type: 'string', arg: 'SOURCE', help: 'database to start in (as after USE SOURCE)' },
      'max-rows': { type: 'string', arg: 'N', help: 'rows shown per result (default 200)' },
      ...REMOTE,
      ...CONFIG,
      demo: { type: 'boolean', help: "add the read-only 'demo' source (in-process only)" },
      ...HELP_FLAG,
    },
    notes: `A statement runs when a line ends with ';'. Ctrl-C cancels a running statement or the
line being typed; Ctrl-D leaves. History is kept in ~/.tributary_history. With stdin not a
terminal, the statements are read and run without prompts.`,
  },
  upload: {
    name: 'upload',
    usage: ['tributary upload FILE [NAME] [options]'],
    summary: 'store a CSV/TSV/JSON/NDJSON/Parquet/XLSX file as the table files.NAME',
    flags: {
      replace: { type: 'boolean', help: 'replace an existing table of that name' },
      format: {
        type: 'string',
        arg: 'F',
        help: 'csv, tsv, json, ndjson, parquet or xlsx (default: from the name)',
      },
      sheet: { type: 'string', arg: 'S', help: 'XLSX sheet to read (default: the first)' },
      types: {
        type: 'string',
        arg: 'COL:TYPE,...',
        help: 'CSV/TSV column types, e.g. amount:decimal(12,2),qty:int (default: inferred)',
      },
      delimiter: {
        type: 'string',
        arg: 'D',
        help: "CSV delimiter: ',' ';' tab or '|' (default: detected from the first records)",
      },
      ...REMOTE,
      ...CONFIG,
      ...HELP_FLAG,
    },
    notes: 'NAME defaults to the file name. Without --url the file is stored in this process.',
  },
  'hash-password': {
    name: 'hash-password',
    usage: ['tributary hash-password < password.txt', 'tributary hash-password   (asks, without echo)'],
    summary: 'print the password_hash of auth.users_file for a password read from stdin',
    flags: { ...HELP_FLAG },
    notes: `Reads the password as one line on standard input (its line end is not part of it) and
prints scrypt$N=32768,r=8,p=1$<salt>$<hash>: scrypt (RFC 7914) with a 16-byte random salt and a
32-byte hash, base64url. Put it in the users file:
  [{"username": "ana", "password_hash": "scrypt$...", "groups": ["support"]}]
Example:
  printf '%s\n' "$ANA_PASSWORD" | tributary hash-password`,
  },
  help: {
    name: 'help',
    usage: ['tributary help [COMMAND]'],
    summary:
      "show the help of tributary or of one command ('query', 'sql', 'upload', 'hash-password', 'serve')",
    flags: {},
  },
};

function flagLines(flags: Record<string, FlagSpec>): string {
  const rows = Object.entries(flags).map(([name, f]) => {
    const left = `${f.short ? `-${f.short}, ` : '    '}--${name}${f.arg ? ` ${f.arg}` : ''}`;
    return [left, f.help] as const;
  });
  const w = Math.max(...rows.map((r) => r[0].length)) + 2;
  return rows.map(([l, h]) => `  ${l.padEnd(w)}${h}`).join('\n');
}

/** One command's help: usage, summary, every flag. */
export function commandHelp(name: string): string {
  const c = COMMANDS[name];
  if (!c) throw new UsageError(`Unknown command '${name}'. Commands: ${Object.keys(COMMANDS).join(', ')}`);
  const flags = Object.keys(c.flags).length ? `\nOptions:\n${flagLines(c.flags)}\n` : '';
  return `Usage:\n${c.usage.map((u) => `  ${u}`).join('\n')}\n\n${c.summary}\n${flags}${c.notes ? `\n${c.notes}\n` : ''}`;
}

/** `tributary --help`: every command and the server's flags. */
export function mainHelp(): string {
  const w = Math.max(...Object.keys(COMMANDS).map((n) => n.length)) + 2;
  const cmds = Object.values(COMMANDS)
    .map((c) => `  ${c.name.padEnd(w)}${c.summary}`)
    .join('\n');
  return `tributary ${VERSION}: federated SQL (MySQL syntax) over databases, APIs and files, for AI agents

Usage:
  tributary [options]                 start the HTTP server (API + MCP) on 127.0.0.1:47334
  tributary --mcp-stdio [options]     serve MCP on stdin/stdout only
  tributary COMMAND [options]         run a command; 'tributary help COMMAND' shows its flags

Commands:
${cmds}

Server options:
${flagLines(COMMANDS.serve.flags)}

Storage (catalog, uploads, key) lives in TRIBUTARY_STORAGE_DIR (default ~/.tributary).
Exit codes: 0 ok, 1 a statement or request failed, 2 wrong command line or configuration.
Example:
  tributary --demo &
  tributary query --url http://127.0.0.1:47334 \\
    "SELECT city, COUNT(*) AS n FROM demo.customers GROUP BY city ORDER BY n DESC"
`;
}

export interface Parsed {
  command: string;
  values: Record<string, string | boolean | undefined>;
  positionals: string[];
}

/** Split argv into a command and its flags, strictly: an unknown flag is a UsageError. */
export function parseCommandLine(argv: string[]): Parsed {
  const first = argv[0] !== undefined && !argv[0].startsWith('-') ? argv[0] : undefined;
  if (first !== undefined && !(first in COMMANDS))
    throw new UsageError(`Unknown command '${first}'. Commands: ${Object.keys(COMMANDS).join(', ')}`);
  const command = first ?? 'serve';
  const spec = COMMANDS[command];
  const rest = first === undefined ? argv : argv.slice(1);
  const options: Record<string, { type: 'string' | 'boolean'; short?: string }> = {};
  for (const [k, f] of Object.entries(spec.flags))
    options[k] = { type: f.type, ...(f.short ? { short: f.short } : {}) };
  let parsed: ReturnType<typeof parseArgs>;
  try {
    parsed = parseArgs({ args: rest, options, allowPositionals: true, strict: true });
  } catch (e) {
    throw new UsageError(
      (e as Error).message.split('\n')[0].replace(/\. To specify a positional.*$/, ''),
      command,
    );
  }
  if (command === 'serve' && parsed.positionals.length)
    throw new UsageError(
      `Unknown command '${parsed.positionals[0]}'. Commands: ${Object.keys(COMMANDS).join(', ')}`,
    );
  return { command, values: parsed.values as Parsed['values'], positionals: parsed.positionals };
}
