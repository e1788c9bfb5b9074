/** Statements the files source accepts in execute(), recognised from the text the engine sends. */
export type FilesStatement =
  | { kind: 'ctas'; table: string; select: string; ifNotExists: boolean }
  | { kind: 'create'; table: string; columnsSql: string; ifNotExists: boolean }
  | { kind: 'drop'; table: string; ifExists: boolean }
  | { kind: 'dml'; table: string }
  | { kind: 'other' };

// A table as the engine names it in DuckDB's dialect: "t", t, or "main"."t".
const NAME = String.raw`(?:(?:"main"|main)\s*\.\s*)?("(?:[^"]|"")+"|[A-Za-z_][A-Za-z0-9_]*)`;
const CTAS = new RegExp(
  String.raw`^\s*CREATE\s+TABLE\s+(IF\s+NOT\s+EXISTS\s+)?${NAME}\s+AS\s+([\s\S]+?)\s*;?\s*$`,
  'i',
);
const CREATE = new RegExp(
  String.raw`^\s*CREATE\s+TABLE\s+(IF\s+NOT\s+EXISTS\s+)?${NAME}\s*(\([\s\S]*\))\s*;?\s*$`,
  'i',
);
const DROP = new RegExp(String.raw`^\s*DROP\s+TABLE\s+(IF\s+EXISTS\s+)?${NAME}\s*;?\s*$`, 'i');
const DML = new RegExp(String.raw`^\s*(?:INSERT\s+INTO|UPDATE|DELETE\s+FROM)\s+${NAME}`, 'i');

function unquote(s: string): string {
  return s.startsWith('"') ? s.slice(1, -1).replace(/""/g, '"') : s;
}

/** Whether the opening parenthesis closes at the very end (quotes and strings skipped). */
function wrapped(s: string): boolean {
  if (!s.startsWith('(') || !s.endsWith(')')) return false;
  let depth = 0;
  let quote: string | null = null;
  for (let i = 0; i < s.length; i++) {
    const c = s[i];
    if (quote) {
      if (c === quote) quote = null;
    } else if (c === "'" || c === '"') quote = c;
    else if (c === '(') depth++;
    else if (c === ')' && --depth === 0) return i === s.length - 1;
  }
  return false;
}

export function parseFilesStatement(sql: string): FilesStatement {
  let m = CTAS.exec(sql);
  if (m) {
    let select = m[3];
    // `AS (SELECT ...)`: the parentheses are optional in MySQL.
    if (wrapped(select)) select = select.slice(1, -1);
    return { kind: 'ctas', table: unquote(m[2]), select, ifNotExists: !!m[1] };
  }
  m = CREATE.exec(sql);
  if (m) return { kind: 'create', table: unquote(m[2]), columnsSql: m[3], ifNotExists: !!m[1] };
  m = DROP.exec(sql);
  if (m) return { kind: 'drop', table: unquote(m[2]), ifExists: !!m[1] };
  m = DML.exec(sql);
  if (m) return { kind: 'dml', table: unquote(m[1]) };
  return { kind: 'other' };
}
