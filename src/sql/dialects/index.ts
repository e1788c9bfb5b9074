/**
 * The dialect layer: normalized MySQL AST → SQL text for a target, keeping MySQL's meaning.
 * The planner asks `canCompile` before pushing a statement (or a fragment) down, and
 * `compile` to get the text.
 */
import type { SqlStatement } from '../ast/nodes.js';
import type { SqlCompiler } from './compiler.js';
import { displayName } from './display.js';
import { DuckdbCompiler } from './duckdb.js';
import { MysqlCompiler } from './mysql.js';
import { PostgresCompiler } from './postgres.js';
import { SqliteCompiler } from './sqlite.js';
import { twoPhase } from './two-phase.js';
import { type CompileOptions, type Target, UnsupportedError } from './types.js';

export { SqlCompiler } from './compiler.js';
export { displayName } from './display.js';
export type { ColumnRefName, CompileOptions, Kind, TableRefName, Target } from './types.js';
export { UnsupportedError } from './types.js';
export { DuckdbCompiler, MysqlCompiler, PostgresCompiler, SqliteCompiler };

export function compilerFor(target: Target, given: CompileOptions = {}): SqlCompiler {
  const opts: CompileOptions = given.displayName ? given : { ...given, displayName };
  switch (target) {
    case 'mysql':
      return new MysqlCompiler(opts);
    case 'postgres':
      return new PostgresCompiler(opts);
    case 'duckdb':
      return new DuckdbCompiler(opts);
    case 'sqlite':
      return new SqliteCompiler(opts);
    default:
      throw new Error(`unknown SQL target ${String(target)}`);
  }
}

/**
 * The statement as the compiler takes it: a grouped SELECT over text in two phases
 * (two-phase.ts) on targets that emulate MySQL's collation.
 */
function prepare(
  ast: SqlStatement,
  target: Target,
  opts: CompileOptions,
): { ast: SqlStatement; opts: CompileOptions } {
  // SQLite has no ordered aggregate to keep MySQL's choice of spelling with: one phase there.
  if ((target !== 'postgres' && target !== 'duckdb') || opts.collation === 'source') return { ast, opts };
  return twoPhase(ast, { displayName, ...opts }) ?? { ast, opts };
}

/** SQL text for the target. Throws UnsupportedError when the target cannot say it. */
export function compile(ast: SqlStatement, target: Target, opts: CompileOptions = {}): string {
  const p = prepare(ast, target, opts);
  return compilerFor(target, p.opts).compile(p.ast);
}

/** SQL text for the target, and where it only approximates MySQL's meaning. Throws UnsupportedError. */
export function compileChecked(
  ast: SqlStatement,
  target: Target,
  opts: CompileOptions = {},
): { sql: string; approximations: string[] } {
  const p = prepare(ast, target, opts);
  const c = compilerFor(target, p.opts);
  const sql = c.compile(p.ast);
  return { sql, approximations: [...c.approximations] };
}

export type CanCompile = { ok: true } | { ok: false; reason: string };

/** Whether `compile` would succeed, and why not. */
export function canCompile(ast: SqlStatement, target: Target, opts: CompileOptions = {}): CanCompile {
  try {
    compile(ast, target, opts);
    return { ok: true };
  } catch (e) {
    if (e instanceof UnsupportedError) return { ok: false, reason: e.reason };
    throw e;
  }
}

/** An identifier quoted for the target (for `tableName` callbacks). */
export function quoteIdentifier(target: Target, name: string): string {
  return compilerFor(target).quoteIdent(name);
}

/** A string literal escaped for the target. */
export function quoteString(target: Target, value: string): string {
  return compilerFor(target).stringLiteral(value);
}
