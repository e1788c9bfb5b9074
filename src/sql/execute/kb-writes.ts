import { ErrorCode, SqlError } from '../../core/errors.js';
import type { CanonicalValue } from '../../core/types.js';
import { type Expr, literalValue, type SqlStatement, type TableItem } from '../ast/nodes.js';
import { conjuncts, nameOf } from '../ast/walk.js';
import type { ExecOptions, QueryContext } from '../engine-types.js';
import type { KbInsertCounts, KbInsertOptions, KnowledgeBases } from '../kb-port.js';
import type { ExecutionContext, Outcome } from './context.js';
import { runPlan } from './run-plan.js';

/**
 * Writes whose target is a knowledge base: `INSERT INTO kb SELECT ... FROM <any source>`
 * (the SELECT runs federated, its rows stream to the KB), `INSERT INTO kb (cols) VALUES`,
 * and `DELETE FROM kb WHERE id = ... | id IN (...)`. Null when the target is not a KB.
 */
export async function runKbWrite(
  engine: ExecutionContext,
  kb: KnowledgeBases | undefined,
  ast: SqlStatement,
  ctx: QueryContext,
  opts: ExecOptions,
): Promise<Outcome | null> {
  if (!kb) return null;
  const target = targetOf(ast);
  if (!target || target.db || !kb.has(target.table)) return null;
  const name = target.table;
  if (ast.type === 'insert' || ast.type === 'replace') {
    const columns = ast.columns?.length ? ast.columns.map(String) : null;
    if (ast.values?.type === 'values') {
      if (!columns)
        throw new SqlError(
          ErrorCode.SYNTAX,
          `INSERT INTO knowledge base '${name}' VALUES needs a column list: INSERT INTO ${name} (id, content, ...) VALUES (...)`,
        );
      const rows = ast.values.values.map((list) => (list.value as Expr[]).map((e) => literal(e, name)));
      return okCounts(await kb.insert(name, { columns, batches: once(rows) }, kbOpts(opts)));
    }
    if (ast.values?.type === 'select') {
      const plan = await engine.plan(ast.values, ctx);
      // Progress counts rows stored in the KB, not rows read from the source.
      const stream = await runPlan(plan, engine.local, engine.runOpts({ ...opts, onProgress: undefined }));
      try {
        const counts = await kb.insert(
          name,
          {
            columns: columns ?? stream.columns.map((c) => c.name),
            types: stream.columns.map((c) => c.type),
            batches: stream.batches,
          },
          kbOpts(opts),
        );
        return okCounts(counts);
      } finally {
        await stream.cancel().catch(() => {});
      }
    }
    throw new SqlError(
      ErrorCode.NOT_SUPPORTED,
      `INSERT INTO knowledge base '${name}' takes VALUES or a SELECT`,
    );
  }
  if (ast.type === 'delete') {
    const ids: CanonicalValue[] = [];
    const parts = conjuncts(ast.where);
    const ok =
      parts.length === 1 &&
      parts[0].type === 'binary_expr' &&
      parts[0].left.type === 'column_ref' &&
      nameOf(parts[0].left.column)?.toLowerCase() === 'id';
    if (ok && parts[0].type === 'binary_expr') {
      const op = String(parts[0].operator).toUpperCase();
      const right = parts[0].right;
      if (op === '=') ids.push(literal(right, name));
      else if (op === 'IN' && right.type === 'expr_list')
        for (const e of right.value as Expr[]) ids.push(literal(e, name));
    }
    if (ids.length === 0)
      throw new SqlError(
        ErrorCode.NOT_SUPPORTED,
        `DELETE FROM knowledge base '${name}' needs WHERE id = <value> or WHERE id IN (...)`,
      );
    return { kind: 'ok', affected: await kb.delete(name, ids) };
  }
  throw new SqlError(
    ErrorCode.NOT_SUPPORTED,
    `${String(ast.type).toUpperCase()} on knowledge base '${name}' is not supported: use INSERT (upsert by id) or DELETE`,
  );
}

function kbOpts(opts: ExecOptions): KbInsertOptions {
  return { signal: opts.signal, onProgress: opts.onProgress };
}

function okCounts(c: KbInsertCounts): Outcome {
  const { affected, inserted, updated, unchanged, failed } = c;
  return { kind: 'ok', affected, counts: { inserted, updated, unchanged, failed } };
}

function targetOf(ast: SqlStatement): TableItem | null {
  if (ast.type === 'insert' || ast.type === 'replace') return ast.table?.[0] ?? null;
  if (ast.type === 'delete') {
    const t = ast.from?.[0] ?? ast.table?.[0];
    return t && 'table' in t && typeof t.table === 'string' ? (t as TableItem) : null;
  }
  if (ast.type === 'update') {
    const t = ast.table?.[0];
    return t && typeof t.table === 'string' ? (t as TableItem) : null;
  }
  return null;
}

function literal(e: Expr, kb: string): CanonicalValue {
  const v = literalValue(e);
  if (v === undefined)
    throw new SqlError(
      ErrorCode.NOT_SUPPORTED,
      `Knowledge base '${kb}': VALUES and WHERE id take literals (strings, numbers, true/false, NULL)`,
    );
  return v;
}

async function* once<T>(x: T): AsyncGenerator<T> {
  yield x;
}
