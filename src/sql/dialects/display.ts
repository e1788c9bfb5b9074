/**
 * MySQL-style labels for unaliased computed select items (`COUNT(*)`, `a + 1`): MySQL names
 * such a column after the expression's text, so labels are the expression said back in
 * MySQL, with simple names left unquoted.
 */
import type { ColumnRef, Expr, SelectStmt } from '../ast/nodes.js';
import { MysqlCompiler } from './mysql.js';

const SIMPLE_IDENT = /^[A-Za-z_][A-Za-z0-9_$]*$/;

class DisplayCompiler extends MysqlCompiler {
  override quoteIdent(name: string): string {
    return SIMPLE_IDENT.test(name) ? name : super.quoteIdent(name);
  }
  protected override columnRef(node: ColumnRef): string {
    const col = this.quoteIdent(String(node.column));
    return node.table ? `${this.quoteIdent(String(node.table))}.${col}` : col;
  }
  override selectStatement(_s: SelectStmt): string {
    return 'SELECT ...';
  }
}

const display = new DisplayCompiler();

/** The label MySQL gives an unaliased expression; a string literal is labelled with the string itself. */
export function displayName(e: Expr): string {
  try {
    return e?.type === 'string' ? String(e.value) : display.expr(e);
  } catch {
    return 'expr';
  }
}
