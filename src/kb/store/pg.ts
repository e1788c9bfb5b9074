import { SqlError } from '../../core/errors.js';
import type { ResolvedCondition } from '../filters.js';
import { termCounts } from '../keyword.js';
import { queryTerms } from '../text.js';
import { filterSql } from './pg-filters.js';
import type { ArmsRequest, ChunkRow, DocHashes, KbStore, Scored, StoredDoc } from './types.js';

/** What the store needs of a PostgreSQL connection (a `pg` client). */
export interface PgClient {
  // biome-ignore lint/suspicious/noExplicitAny: rows are read field by field below
  query(text: string, values?: unknown[]): Promise<{ rows: any[]; rowCount: number | null }>;
}
/** Runs `fn` on one client and gives it back (a source's pool, or the catalog's). */
export type PgRunner = <T>(fn: (c: PgClient) => Promise<T>) => Promise<T>;

/** `pgvector`: a vector(dim) column with an HNSW index; `array`: real[] and exact search in SQL. */
export type PgVectorMode = 'pgvector' | 'array';

export interface PgTables {
  schema: string;
  /** The chunk table; its companions take it as a prefix (`_docs`, `_terms`, `_stats`). */
  table: string;
  /** How errors name where the data lives: `source 'pg'`, `the catalog database`. */
  where: string;
}

const K1 = 1.2;
const B = 0.75;
/** ef_search of HNSW scans (pgvector's default is 40): at least this, or twice the rows wanted. */
const EF_SEARCH_MIN = 100;
/** pgvector's upper bound for hnsw.ef_search. */
const EF_SEARCH_MAX = 1000;

const q = (name: string) => `"${name.replace(/"/g, '""')}"`;

/**
 * Knowledge-base chunks in PostgreSQL (docs/reference/sql.md, "Knowledge bases"): a source's
 * table (`storage = src.table`, pgvector) or, with a shared catalog, tables in the catalog's
 * database so that every replica sees the same chunks. Four tables:
 *   T        chunks: chunk_id, id, content, metadata (jsonb), embedding, len (words), seq
 *   T_docs   one row per document: the hashes that spare re-embedding
 *   T_terms  BM25 postings (term, chunk_id, tf), kept up to date in the same transaction as
 *            the chunks (rows cascade from T), so every replica's keyword arm sees one index
 *   T_stats  documents, chunks and total words (BM25's average length) without a count(*)
 * Writers of one KB take turns on an advisory lock, so two replicas upserting the same id
 * never race. Vector search is exact whenever a filter is present: the filter runs first and
 * the cosine is computed for matching chunks only (an HNSW scan filtered afterwards can return
 * fewer than k rows, and pgvector's iterative scan still returns approximate neighbours), so
 * filtered results equal a brute-force scan. Without a filter the HNSW index answers, with
 * ef_search raised to max(100, 2k). Without pgvector (`array`) every search is exact.
 */
export class PgKbStore implements KbStore {
  private readonly t: { chunks: string; docs: string; terms: string; stats: string; lock: string };

  private constructor(
    private readonly run: PgRunner,
    tables: PgTables,
    readonly kind: PgVectorMode,
    readonly dimension: number,
  ) {
    const s = `${q(tables.schema)}.`;
    this.t = {
      chunks: s + q(tables.table),
      docs: s + q(`${tables.table}_docs`),
      terms: s + q(`${tables.table}_terms`),
      stats: s + q(`${tables.table}_stats`),
      lock: `${tables.schema}.${tables.table}`,
    };
  }

  /**
   * Create the tables (refusing a table that already exists: it is not ours to adopt).
   * `mode` null: pgvector when the database has it or can install it, else arrays; a mode
   * given is required (storage = src.table asks for pgvector and fails naming the source).
   */
  static async create(
    run: PgRunner,
    tables: PgTables,
    dimension: number,
    mode: PgVectorMode | null,
  ): Promise<PgKbStore> {
    const chosen = await run(async (c) => {
      const m = mode === 'array' ? 'array' : await ensureVector(c, tables, mode === 'pgvector');
      const s = new PgKbStore(run, tables, m, dimension);
      await s.tx(c, async () => {
        await c.query('SELECT pg_advisory_xact_lock(hashtext($1))', [s.t.lock]);
        const exists = await c.query('SELECT to_regclass($1) AS r', [s.t.chunks]);
        if (exists.rows[0].r !== null)
          throw new SqlError(
            1050,
            `Table '${tables.schema}.${tables.table}' already exists in ${tables.where}: a knowledge base needs a table of its own (choose another name or drop it)`,
          );
        await c.query(`CREATE SCHEMA IF NOT EXISTS ${q(tables.schema)}`);
        await c.query(`CREATE TABLE ${s.t.docs} (
          id text PRIMARY KEY, content_hash text NOT NULL, row_hash text NOT NULL)`);
        await c.query(`CREATE TABLE ${s.t.chunks} (
          chunk_id text PRIMARY KEY,
          id text NOT NULL,
          content text NOT NULL,
          metadata jsonb NOT NULL,
          embedding ${m === 'pgvector' ? `vector(${dimension})` : 'real[]'} NOT NULL,
          len integer NOT NULL,
          seq bigint GENERATED ALWAYS AS IDENTITY)`);
        await c.query(`CREATE INDEX ON ${s.t.chunks} (id)`);
        await c.query(`CREATE INDEX ON ${s.t.chunks} (seq)`);
        if (m === 'pgvector')
          await c.query(`CREATE INDEX ON ${s.t.chunks} USING hnsw (embedding vector_cosine_ops)`);
        await c.query(`CREATE TABLE ${s.t.terms} (
          term text NOT NULL,
          chunk_id text NOT NULL REFERENCES ${s.t.chunks} (chunk_id) ON DELETE CASCADE,
          tf integer NOT NULL,
          PRIMARY KEY (term, chunk_id))`);
        await c.query(`CREATE INDEX ON ${s.t.terms} (chunk_id)`);
        await c.query(`CREATE TABLE ${s.t.stats} (
          docs bigint NOT NULL, chunks bigint NOT NULL, total_len bigint NOT NULL)`);
        await c.query(`INSERT INTO ${s.t.stats} VALUES (0, 0, 0)`);
      });
      return m;
    });
    return new PgKbStore(run, tables, chosen, dimension);
  }

  /** Attach to tables made by `create` (a restart, another replica); the mode is read from the column type. */
  static async open(run: PgRunner, tables: PgTables, dimension: number): Promise<PgKbStore> {
    const type = await run(async (c) => {
      const r = await c.query(
        `SELECT format_type(a.atttypid, a.atttypmod) AS type FROM pg_attribute a
         WHERE a.attrelid = to_regclass($1) AND a.attname = 'embedding'`,
        [`${q(tables.schema)}.${q(tables.table)}`],
      );
      return r.rows[0]?.type as string | undefined;
    });
    if (!type)
      throw new SqlError(
        1146,
        `The knowledge base table '${tables.schema}.${tables.table}' is missing from ${tables.where}`,
      );
    return new PgKbStore(run, tables, type.startsWith('vector') ? 'pgvector' : 'array', dimension);
  }

  async counts(): Promise<{ rows: number; chunks: number }> {
    const r = await this.run((c) => c.query(`SELECT docs, chunks FROM ${this.t.stats}`));
    return { rows: Number(r.rows[0]?.docs ?? 0), chunks: Number(r.rows[0]?.chunks ?? 0) };
  }

  async hashes(ids: string[]): Promise<Map<string, DocHashes>> {
    const r = await this.run((c) =>
      c.query(`SELECT id, content_hash, row_hash FROM ${this.t.docs} WHERE id = ANY($1::text[])`, [ids]),
    );
    return new Map(r.rows.map((x) => [x.id, { contentHash: x.content_hash, rowHash: x.row_hash }]));
  }

  async vectorsOfDoc(id: string): Promise<Float32Array[]> {
    const r = await this.run((c) =>
      c.query(`SELECT embedding::text AS e FROM ${this.t.chunks} WHERE id = $1 ORDER BY seq`, [id]),
    );
    return r.rows.map((x) => parseVector(x.e));
  }

  async put(docs: StoredDoc[]): Promise<void> {
    if (docs.length === 0) return;
    const ids = docs.map((d) => d.id);
    const chunk = { ids: [] as string[], cids: [] as string[], text: [] as string[], meta: [] as string[] };
    const vecs: string[] = [];
    const lens: number[] = [];
    const post = { term: [] as string[], cid: [] as string[], tf: [] as number[] };
    let words = 0;
    for (const d of docs) {
      const meta = JSON.stringify(d.metadata);
      for (const ch of d.chunks) {
        chunk.ids.push(d.id);
        chunk.cids.push(ch.chunkId);
        chunk.text.push(ch.content);
        chunk.meta.push(meta);
        vecs.push(this.vectorText(ch.vector));
        let len = 0;
        for (const [term, n] of termCounts(ch.content)) {
          post.term.push(term);
          post.cid.push(ch.chunkId);
          post.tf.push(n);
          len += n;
        }
        lens.push(len);
        words += len;
      }
    }
    await this.write(async (c) => {
      const gone = await this.removeDocs(c, ids);
      await c.query(
        `INSERT INTO ${this.t.docs} (id, content_hash, row_hash)
         SELECT * FROM unnest($1::text[], $2::text[], $3::text[])`,
        [ids, docs.map((d) => d.contentHash), docs.map((d) => d.rowHash)],
      );
      await c.query(
        `INSERT INTO ${this.t.chunks} (id, chunk_id, content, metadata, embedding, len)
         SELECT i, ci, t, m::jsonb, e::${this.kind === 'pgvector' ? `vector(${this.dimension})` : 'real[]'}, l
         FROM unnest($1::text[], $2::text[], $3::text[], $4::text[], $5::text[], $6::int[]) AS u(i, ci, t, m, e, l)`,
        [chunk.ids, chunk.cids, chunk.text, chunk.meta, vecs, lens],
      );
      await c.query(
        `INSERT INTO ${this.t.terms} (term, chunk_id, tf) SELECT * FROM unnest($1::text[], $2::text[], $3::int[])`,
        [post.term, post.cid, post.tf],
      );
      await c.query(
        `UPDATE ${this.t.stats} SET docs = docs + $1, chunks = chunks + $2, total_len = total_len + $3`,
        [docs.length - gone.docs, chunk.cids.length - gone.chunks, words - gone.words],
      );
    });
  }

  async delete(ids: string[]): Promise<number> {
    if (ids.length === 0) return 0;
    return this.write(async (c) => {
      const gone = await this.removeDocs(c, ids);
      await c.query(
        `UPDATE ${this.t.stats} SET docs = docs - $1, chunks = chunks - $2, total_len = total_len - $3`,
        [gone.docs, gone.chunks, gone.words],
      );
      return gone.docs;
    });
  }

  /** Remove documents with their chunks (postings cascade); what left, for the statistics. */
  private async removeDocs(c: PgClient, ids: string[]) {
    const ch = await c.query(
      `WITH d AS (DELETE FROM ${this.t.chunks} WHERE id = ANY($1::text[]) RETURNING len)
       SELECT count(*)::int AS n, coalesce(sum(len), 0)::bigint AS words FROM d`,
      [ids],
    );
    const docs = await c.query(`DELETE FROM ${this.t.docs} WHERE id = ANY($1::text[])`, [ids]);
    return { docs: docs.rowCount ?? 0, chunks: Number(ch.rows[0].n), words: Number(ch.rows[0].words) };
  }

  async scan(filters: ResolvedCondition[], limit: number | null): Promise<ChunkRow[]> {
    const params: unknown[] = [];
    const where = filterSql(filters, params);
    const lim = limit === null ? '' : ` LIMIT ${Math.max(0, Math.floor(limit))}`;
    const r = await this.run((c) =>
      c.query(
        `SELECT c.id, c.chunk_id, c.content, c.metadata FROM ${this.t.chunks} c WHERE ${where} ORDER BY c.seq${lim}`,
        params,
      ),
    );
    return r.rows.map(toRow);
  }

  async arms(req: ArmsRequest): Promise<{ vector: Scored[]; keyword: Scored[] }> {
    return this.run(async (c) => {
      const vector = req.vector && req.vectorK > 0 ? await this.vectorArm(c, req) : [];
      const keyword = req.query !== null && req.keywordK > 0 ? await this.keywordArm(c, req) : [];
      return { vector, keyword };
    });
  }

  private async vectorArm(c: PgClient, req: ArmsRequest): Promise<Scored[]> {
    const params: unknown[] = [this.vectorText(req.vector!)];
    const where = filterSql(req.filters, params);
    const sim = this.simSql('c.embedding', '$1');
    if (this.kind === 'pgvector' && req.filters.length === 0) {
      // The HNSW index: it serves ORDER BY embedding <=> $1 LIMIT k, nothing else.
      const ef = Math.min(EF_SEARCH_MAX, Math.max(EF_SEARCH_MIN, 2 * req.vectorK));
      return this.tx(c, async () => {
        await c.query(`SET LOCAL hnsw.ef_search = ${ef}`);
        const r = await c.query(
          `SELECT c.id, c.chunk_id, c.content, c.metadata, ${sim} AS sim FROM ${this.t.chunks} c
           ORDER BY c.embedding <=> $1::vector LIMIT ${req.vectorK}`,
          params,
        );
        return r.rows.map(toScored);
      });
    }
    // Exact: the filter first (OFFSET 0 keeps the planner from ordering through the index
    // and filtering afterwards), then the cosine of every matching chunk.
    const r = await c.query(
      `SELECT c.id, c.chunk_id, c.content, c.metadata, ${sim} AS sim
       FROM (SELECT * FROM ${this.t.chunks} c WHERE ${where} OFFSET 0) c
       ORDER BY sim DESC, c.seq LIMIT ${req.vectorK}`,
      params,
    );
    return r.rows.map(toScored);
  }

  /** BM25 as the embedded index computes it (kb/keyword.ts), over the postings of the question's words. */
  private async keywordArm(c: PgClient, req: ArmsRequest): Promise<Scored[]> {
    const terms = queryTerms(req.query!);
    if (terms.length === 0) return [];
    const params: unknown[] = [terms];
    const sim = req.vector
      ? this.simSql('c.embedding', `$${params.push(this.vectorText(req.vector))}`)
      : 'NULL';
    const where = filterSql(req.filters, params);
    const r = await c.query(
      `WITH st AS (SELECT chunks::float8 AS n, CASE WHEN chunks > 0 THEN total_len::float8 / chunks ELSE 1 END AS avgdl FROM ${this.t.stats}),
       df AS (SELECT term, count(*)::float8 AS df FROM ${this.t.terms} WHERE term = ANY($1::text[]) GROUP BY term),
       sc AS (
         SELECT t.chunk_id, sum(ln(1 + (st.n - df.df + 0.5) / (df.df + 0.5)) * t.tf * ${K1 + 1}
                  / (t.tf + ${K1} * (${1 - B} + ${B} * c.len / st.avgdl))) AS bm25
         FROM ${this.t.terms} t JOIN df USING (term) JOIN ${this.t.chunks} c ON c.chunk_id = t.chunk_id CROSS JOIN st
         WHERE ${where}
         GROUP BY t.chunk_id)
       SELECT c.id, c.chunk_id, c.content, c.metadata, sc.bm25, ${sim} AS sim
       FROM sc JOIN ${this.t.chunks} c USING (chunk_id)
       ORDER BY sc.bm25 DESC, c.seq LIMIT ${req.keywordK}`,
      params,
    );
    return r.rows.map(toScored);
  }

  async close(): Promise<void> {}

  async drop(): Promise<void> {
    await this.run((c) =>
      c.query(`DROP TABLE IF EXISTS ${this.t.terms}, ${this.t.chunks}, ${this.t.docs}, ${this.t.stats}`),
    );
  }

  /** Cosine similarity: pgvector's distance, or the dot product of two unit real[] (exact, in SQL). */
  private simSql(col: string, param: string): string {
    return this.kind === 'pgvector'
      ? `1 - (${col} <=> ${param}::vector)`
      : `(SELECT sum(a::float8 * b::float8) FROM unnest(${col}, ${param}::real[]) AS v(a, b))`;
  }

  private vectorText(v: Float32Array): string {
    const body = Array.from(v).join(',');
    return this.kind === 'pgvector' ? `[${body}]` : `{${body}}`;
  }

  private write<T>(fn: (c: PgClient) => Promise<T>): Promise<T> {
    return this.run((c) =>
      this.tx(c, async () => {
        await c.query('SELECT pg_advisory_xact_lock(hashtext($1))', [this.t.lock]);
        return fn(c);
      }),
    );
  }

  /** `fn` in a transaction on `c`; rolled back when it throws, so the client goes back clean. */
  private async tx<T>(c: PgClient, fn: () => Promise<T>): Promise<T> {
    await c.query('BEGIN');
    try {
      const out = await fn();
      await c.query('COMMIT');
      return out;
    } catch (e) {
      await c.query('ROLLBACK').catch(() => {});
      throw e;
    }
  }
}

/**
 * pgvector in the database: already there, or installed now. `required` (storage = src.table):
 * failing is an error naming where; otherwise arrays are used instead.
 */
async function ensureVector(c: PgClient, tables: PgTables, required: boolean): Promise<PgVectorMode> {
  const have = await c.query(`SELECT 1 FROM pg_extension WHERE extname = 'vector'`);
  if (have.rows.length > 0) return 'pgvector';
  try {
    await c.query('CREATE EXTENSION IF NOT EXISTS vector');
    return 'pgvector';
  } catch (e) {
    if (!required) return 'array';
    throw new SqlError(
      1105,
      `pgvector is not installed in ${tables.where}: CREATE EXTENSION vector failed (${(e as Error).message}). Install pgvector on that server, or omit storage to use the embedded store`,
    );
  }
}

function parseVector(text: string): Float32Array {
  const body = text.slice(1, -1);
  return body === '' ? new Float32Array(0) : Float32Array.from(body.split(','), Number);
}

/** A chunk row; a source's pool returns jsonb as text (its type parsers keep values canonical). */
const toRow = (x: { id: string; chunk_id: string; content: string; metadata: unknown }): ChunkRow => ({
  id: x.id,
  chunkId: x.chunk_id,
  content: x.content,
  metadata: metadataOf(x.metadata),
});

const metadataOf = (m: unknown) => (typeof m === 'string' ? JSON.parse(m) : m) as Record<string, unknown>;

// biome-ignore lint/suspicious/noExplicitAny: a row of the arms' queries
const toScored = (x: any): Scored => ({
  // Written out, not spread and extended (about 1.6 us an object in V8, for each candidate).
  id: x.id,
  chunkId: x.chunk_id,
  content: x.content,
  metadata: metadataOf(x.metadata),
  sim: x.sim === null || x.sim === undefined ? null : Number(x.sim),
  bm25: x.bm25 === null || x.bm25 === undefined ? null : Number(x.bm25),
});
