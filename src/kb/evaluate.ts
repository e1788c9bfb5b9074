import { SqlError } from '../core/errors.js';
import type { QueryContext, SqlEngine } from '../sql/engine-types.js';
import type { KbRows, KbSearch } from '../sql/kb-port.js';
import type { SearchMode } from './search.js';

const K = 10;

/**
 * EVALUATE KNOWLEDGE_BASE kb USING test_table = source.table [, search = 'vector' |
 * 'keyword' | 'hybrid']: each row's `question` is searched (k = 10) and the rank of the
 * first chunk of document `doc_id` scored. One row: total, hits_at_1, hits_at_10,
 * recall_at_10, mrr_at_10, avg_query_ms.
 */
export async function evaluate(
  kb: string,
  params: Record<string, unknown>,
  ctx: QueryContext,
  engine: SqlEngine,
  search: (req: KbSearch, mode: SearchMode) => Promise<KbRows>,
): Promise<KbRows> {
  for (const k of Object.keys(params))
    if (k !== 'test_table' && k !== 'search')
      throw new SqlError(
        1210,
        `EVALUATE KNOWLEDGE_BASE '${kb}': unknown parameter '${k}' (test_table, search)`,
      );
  const table = params.test_table;
  if (typeof table !== 'string')
    throw new SqlError(1210, `EVALUATE KNOWLEDGE_BASE '${kb}' needs test_table = source.table`);
  const mode = String(params.search ?? 'vector').toLowerCase() as SearchMode;
  if (!['vector', 'keyword', 'hybrid'].includes(mode))
    throw new SqlError(
      1210,
      `EVALUATE KNOWLEDGE_BASE '${kb}': search must be 'vector', 'keyword' or 'hybrid'`,
    );
  const quoted = table
    .split('.')
    .map((p) => `\`${p.replace(/`/g, '``')}\``)
    .join('.');
  const r = await engine.execute(`SELECT question, doc_id FROM ${quoted}`, ctx);
  if (r.type === 'error') throw new SqlError(r.error_code, r.error_message);
  if (r.type !== 'table') throw new SqlError(1105, `EVALUATE: ${table} returned no rows`);
  let hits1 = 0;
  let hits10 = 0;
  let mrr = 0;
  let ms = 0;
  for (const [question, docId] of r.data) {
    const t0 = performance.now();
    const res = await search(
      {
        query: String(question),
        filters: [],
        minRelevance: null,
        reranking: true,
        hybrid: mode !== 'vector',
        alpha: mode === 'keyword' ? 0 : null,
        limit: K,
      },
      mode,
    );
    ms += performance.now() - t0;
    const docs: string[] = [];
    for (const row of res.rows) if (!docs.includes(String(row[0]))) docs.push(String(row[0]));
    const at = docs.indexOf(String(docId));
    if (at === 0) hits1++;
    if (at >= 0 && at < K) {
      hits10++;
      mrr += 1 / (at + 1);
    }
  }
  const n = r.data.length;
  return {
    columns: [
      { name: 'total', type: 'BIGINT' },
      { name: 'hits_at_1', type: 'BIGINT' },
      { name: 'hits_at_10', type: 'BIGINT' },
      { name: 'recall_at_10', type: 'DOUBLE' },
      { name: 'mrr_at_10', type: 'DOUBLE' },
      { name: 'avg_query_ms', type: 'DOUBLE' },
    ],
    rows: [[n, hits1, hits10, n ? hits10 / n : 0, n ? mrr / n : 0, n ? ms / n : 0]],
  };
}
