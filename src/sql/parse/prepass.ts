import { quoteIdent as quoteIn } from '../../core/sql-text.js';
import { isKeyword, isName, type Token, tokenize } from './lexer.js';

const quoteIdent = (name: string) => quoteIn('mysql', name);

/** Joins schema and table of a folded three-part name; split again when binding. */
export const SCHEMA_SEP = '\u001f';

const TABLE_CONTEXT = new Set(['FROM', 'JOIN', 'INTO', 'UPDATE', 'TABLE']);
const CLAUSE = new Set([
  'SELECT',
  'FROM',
  'JOIN',
  'WHERE',
  'ON',
  'GROUP',
  'ORDER',
  'HAVING',
  'LIMIT',
  'SET',
  'INTO',
  'UPDATE',
  'TABLE',
  'VALUES',
  'USING',
]);

/**
 * node-sql-parser cannot read `source.schema.table`. Where a dotted name starts with a
 * known source and stands in table position (or is a four-part column reference), fold
 * `schema.table` into one quoted identifier joined by SCHEMA_SEP.
 */
export function foldThreePartNames(sql: string, isSource: (name: string) => boolean): string {
  if (!sql.includes('.')) return sql;
  const t = tokenize(sql);
  const edits: { start: number; end: number; text: string }[] = [];
  let clause = '';
  for (let i = 0; i < t.length; i++) {
    const tok = t[i];
    if (tok.kind === 'ident' && CLAUSE.has(tok.value.toUpperCase())) clause = tok.value.toUpperCase();
    if (!isName(tok) || !isSource(tok.value)) continue;
    const parts: Token[] = [tok];
    let j = i;
    while (isDot(t[j + 1]) && t[j + 1].start === t[j].end && (isName(t[j + 2]) || isStar(t[j + 2]))) {
      parts.push(t[j + 2]);
      j += 2;
    }
    const prev = t[i - 1];
    const tablePos =
      TABLE_CONTEXT.has(clause) &&
      (isKeyword(prev, ...TABLE_CONTEXT) || (prev?.kind === 'punct' && prev.value === ','));
    if ((parts.length === 3 && tablePos) || parts.length === 4) {
      const [db, schema, table] = parts;
      let text = `${quoteIdent(db.value)}.${quoteIdent(schema.value + SCHEMA_SEP + table.value)}`;
      if (parts.length === 4) text += '.' + (isStar(parts[3]) ? '*' : quoteIdent(parts[3].value));
      edits.push({ start: tok.start, end: parts[parts.length - 1].end, text });
    }
    i = j;
  }
  if (edits.length === 0) return sql;
  let out = '';
  let pos = 0;
  for (const e of edits) {
    out += sql.slice(pos, e.start) + e.text;
    pos = e.end;
  }
  return out + sql.slice(pos);
}

function isDot(t: Token | undefined): boolean {
  return !!t && t.kind === 'punct' && t.value === '.';
}
function isStar(t: Token | undefined): boolean {
  return !!t && t.kind === 'punct' && t.value === '*';
}
