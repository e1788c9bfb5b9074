import pkg from 'node-sql-parser/build/mysql.js';
import { ErrorCode, isTooDeep, SqlError, tooDeep } from '../../core/errors.js';
import { rewriteSyntaxGaps } from './gaps.js';
import { selectLabels } from './labels.js';
import { isKeyword, tokenize } from './lexer.js';
import { checkStatementSize } from './limits.js';
import { normalizeAst, rewriteParserGaps } from './normalize.js';
import { foldThreePartNames } from './prepass.js';
import { parseServiceStatement } from './service.js';
import type { Statement } from './statement.js';

export type { KbStatement, Statement, TableName } from './statement.js';

const { Parser } = pkg as unknown as { Parser: new () => { astify(sql: string, o: object): unknown } };
const parser = new Parser();
const OPTS = { database: 'MySQL' };

/** MySQL text → one Statement. `isSource` tells the pre-pass which names are data sources. */
export function parseStatement(sql: string, isSource: (name: string) => boolean): Statement {
  const service = parseServiceStatement(sql);
  if (service) return service;
  const tokens = tokenize(sql);
  checkStatementSize(tokens.length);
  for (const t of tokens) {
    // MySQL refuses a literal beyond double range rather than answering Infinity.
    if (t.kind === 'number' && !Number.isFinite(Number(t.value)))
      throw new SqlError(1367, `Illegal double '${t.value}' value found during parsing`);
  }
  if (isKeyword(tokens[0], 'EXPLAIN', 'DESCRIBE', 'DESC')) {
    const rest = sql.slice(tokens[1]?.start ?? sql.length);
    return { kind: 'explain', inner: parseStatement(rest, isSource) };
  }
  // Three-part names first (the rewrite below keeps quoted names as they are).
  const text = rewriteParserGaps(rewriteSyntaxGaps(foldThreePartNames(sql, isSource)));
  let ast: unknown;
  try {
    ast = parser.astify(text, OPTS);
  } catch (e) {
    if (isTooDeep(e)) throw tooDeep();
    throw new SqlError(ErrorCode.SYNTAX, syntaxMessage(sql, e as Error));
  }
  if (Array.isArray(ast)) {
    if (ast.length !== 1) throw new SqlError(ErrorCode.SYNTAX, 'Syntax error: send one statement at a time');
    ast = ast[0];
  }
  const normalized = normalizeAst(ast as unknown);
  const labels = normalized?.type === 'select' ? selectLabels(sql, normalized) : null;
  return { kind: 'sql', ast: normalized, text: sql, labels };
}

function syntaxMessage(sql: string, e: Error & { location?: { start?: { offset?: number } } }): string {
  const off = e.location?.start?.offset;
  if (typeof off === 'number') {
    const near = sql.slice(off, off + 40);
    return `You have an error in your SQL syntax near '${near}' at position ${off}`;
  }
  return 'You have an error in your SQL syntax';
}
