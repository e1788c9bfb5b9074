import { tableItems } from './ast/walk.js';
import type { KnowledgeBases } from './kb-port.js';
import type { Statement } from './parse/index.js';

/**
 * The knowledge bases a statement names, lower case, each once, for the audit log's
 * `sources` (as `kb:<name>`): the KB of a KB statement (CREATE, ALTER, DROP, DESCRIBE,
 * EVALUATE), and every unqualified table of a SQL statement that is a KB (a search, a join,
 * the target of an INSERT or DELETE, `mindsdb.kb` included). Undefined when there is none.
 */
export function kbsNamed(stmt: Statement, kb: KnowledgeBases): string[] | undefined {
  if ('name' in stmt && stmt.kind.endsWith('_kb')) return [stmt.name.toLowerCase()];
  if (stmt.kind !== 'sql' || kb.count?.() === 0) return undefined;
  let out: string[] | undefined;
  for (const t of tableItems(stmt.ast)) {
    if (t.db && t.db.toLowerCase() !== 'mindsdb') continue;
    if (!kb.has(t.table)) continue;
    const name = t.table.toLowerCase();
    if (!out) out = [name];
    else if (!out.includes(name)) out.push(name);
  }
  return out;
}
