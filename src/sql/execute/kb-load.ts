/**
 * A knowledge-base search loaded into the local engine as a table of the relation's
 * columns, its rows in relevance order (so the table's rowid is the rank the planner
 * orders by). `content IN (...)` runs one search per question and keeps each chunk once,
 * with its best relevance.
 */
import type { DuckDBConnection } from '@duckdb/node-api';
import type { FieldInfo, Row } from '../../core/types.js';
import type { KbSearch } from '../kb-port.js';
import { BATCH_GROWTH, tooMany } from '../plan/kb-k.js';
import type { KbPart } from '../plan/plan-types.js';
import { dq, loadBatches } from './local-load.js';

export type KbRowsFn = (
  name: string,
  search: KbSearch,
  signal?: AbortSignal,
) => Promise<{ columns: FieldInfo[]; rows: Row[] }>;

/** The hits of one fetch, and whether the KB has no more (a search answered fewer than asked). */
export interface Fetched {
  columns: FieldInfo[];
  rows: Row[];
  exhausted: boolean;
}

/** The first number of hits to ask for: k, every hit (kb.max_results + 1, to tell when there are more), or the first batch. */
export function firstLimit(k: KbPart): number | null {
  const d = k.k;
  if (d.kind === 'k') return d.k;
  if (d.kind === 'batches') return Math.min(d.first, k.maxResults + 1);
  return k.queries.length ? k.maxResults + 1 : null;
}

/** The next batch after `limit` hits were not enough, or null when kb.max_results is already passed. */
export function nextLimit(k: KbPart, limit: number): number | null {
  if (limit > k.maxResults) return null;
  return Math.min(limit * BATCH_GROWTH, k.maxResults + 1);
}

export async function fetchHits(
  k: KbPart,
  limit: number | null,
  kbRows: KbRowsFn,
  signal?: AbortSignal,
): Promise<Fetched> {
  const questions = k.queries.length ? k.queries : [null];
  const answers = await Promise.all(
    questions.map((query) => kbRows(k.ref.table, { ...k.search, query, limit }, signal)),
  );
  const exhausted = limit === null || answers.every((a) => a.rows.length < limit);
  const columns = answers[0].columns;
  let rows =
    answers.length === 1
      ? answers[0].rows
      : merged(
          columns,
          answers.map((a) => a.rows),
        );
  if (limit !== null && rows.length > limit) rows = rows.slice(0, limit);
  if (k.k.kind === 'all' && k.queries.length && rows.length > k.maxResults)
    throw tooMany(k.ref.table, `a search with more than ${k.maxResults} hits`, k.maxResults);
  return { columns, rows, exhausted };
}

/** Rows of several questions: each chunk once, with its best relevance, best first (ties: first seen). */
function merged(columns: FieldInfo[], lists: Row[][]): Row[] {
  const chunk = columns.findIndex((c) => c.name === 'chunk_id');
  const rel = columns.findIndex((c) => c.name === 'relevance');
  const best = new Map<unknown, { row: Row; order: number }>();
  for (const rows of lists)
    for (const row of rows) {
      const seen = best.get(row[chunk]);
      if (!seen) best.set(row[chunk], { row, order: best.size });
      else if (Number(row[rel] ?? 0) > Number(seen.row[rel] ?? 0)) seen.row = row;
    }
  return [...best.values()]
    .sort((a, b) => Number(b.row[rel] ?? 0) - Number(a.row[rel] ?? 0) || a.order - b.order)
    .map((x) => x.row);
}

/**
 * (Re)load the KB's table with these hits, in their order: only those passing its prefilter,
 * at most `keep` of them. Returns the rows it holds.
 */
export async function loadHits(
  conn: DuckDBConnection,
  schema: string,
  k: KbPart,
  hits: Fetched,
  keep: number | null,
): Promise<number> {
  const q = (t: string) => `${dq(schema)}.${dq(t)}`;
  const cols = k.columns.length ? k.columns : hits.columns;
  await conn.run(`DROP TABLE IF EXISTS ${q(k.temp)}`);
  if (!k.prefilter) {
    const rows = keep !== null && hits.rows.length > keep ? hits.rows.slice(0, keep) : hits.rows;
    await loadBatches(conn, schema, k.temp, cols, one(rows));
    return rows.length;
  }
  const all = `${k.temp}__hits`;
  await conn.run(`DROP TABLE IF EXISTS ${q(all)}`);
  await loadBatches(conn, schema, all, cols, one(hits.rows));
  await conn.run(`SET search_path = '${schema},main'`);
  await conn.run(
    `CREATE TABLE ${q(k.temp)} AS SELECT * FROM (${k.prefilter}) AS __passing${keep === null ? '' : ` LIMIT ${keep}`}`,
  );
  await conn.run(`DROP TABLE ${q(all)}`);
  const reader = await conn.runAndReadAll(`SELECT count(*) FROM ${q(k.temp)}`);
  return Number(reader.getRowsJS()[0][0]);
}

/**
 * Fetch and load a search; with a prefilter and a k, fetch more (BATCH_GROWTH times each
 * time) until k hits pass it or the KB has no more.
 */
export async function loadSearch(
  conn: DuckDBConnection,
  schema: string,
  k: KbPart,
  kbRows: KbRowsFn,
  signal?: AbortSignal,
): Promise<{ limit: number | null; exhausted: boolean }> {
  let limit = firstLimit(k);
  const keep = k.k.kind === 'k' ? k.k.k : null;
  for (;;) {
    const hits = await fetchHits(k, limit, kbRows, signal);
    const held = await loadHits(conn, schema, k, hits, keep);
    if (keep === null || held >= keep || hits.exhausted || limit === null)
      return { limit, exhausted: hits.exhausted };
    const next = nextLimit(k, limit);
    if (next === null)
      throw tooMany(
        k.ref.table,
        `the ${keep} best hits passing its conditions are not among the first ${k.maxResults}`,
        k.maxResults,
      );
    limit = next;
  }
}

async function* one(rows: Row[]): AsyncGenerator<Row[]> {
  yield rows;
}
