import { hash } from 'node:crypto';
import type { Logger } from 'pino';
import { ErrorCode, SqlError } from '../core/errors.js';
import type { KbInsertCounts, KbInsertOptions, KbRowSource } from '../sql/kb-port.js';
import { chunkText } from './chunker.js';
import type { KbDefinition } from './definition.js';
import type { EmbeddingProvider } from './embed/index.js';
import type { KbStore, StoredDoc } from './store/types.js';

/**
 * Rows per write: one embedding call (HTTP providers split it into their `batch_size`) and
 * one fsynced append to the log. Larger batches amortise the fsync (64 rows per fsync held
 * the 100,000-row ingest under 2,000 rows/s); a failure loses at most this many rows' work.
 */
const BATCH_ROWS = 512;
/** Without an MCP progress token, a long insert logs its progress this often. */
const LOG_EVERY_MS = 5000;

export interface IngestTarget {
  name: string;
  def: KbDefinition;
  provider: EmbeddingProvider;
  store: KbStore;
  checkDimension(v: Float32Array): void;
  /** Each batch's counts once it is stored (GET /metrics). */
  onStored?(counts: { inserted: number; updated: number; unchanged: number; failed: number }): void;
}

/**
 * INSERT INTO kb: rows are upserted by id in batches. A row whose content and metadata hash
 * as stored is unchanged (nothing written); one whose content alone hashes as stored keeps
 * its vectors (no embedding call); a row with no content is failed (not stored, counted).
 * Batches are durable as they complete, so an INSERT that fails mid-way leaves whole rows
 * stored and resumes when re-run (stored rows are then unchanged).
 */
export async function ingest(
  kb: IngestTarget,
  src: KbRowSource,
  opts: KbInsertOptions,
  logger: Logger,
): Promise<KbInsertCounts> {
  const { store, def } = kb;
  const cols = src.columns.map((c) => c.toLowerCase());
  const find = (c: string) => cols.indexOf(c.toLowerCase());
  const idAt = find(def.id_column);
  const contentAt = def.content_columns.map(find);
  const missing = def.content_columns.find((_, i) => contentAt[i] < 0);
  if (missing)
    throw new SqlError(
      ErrorCode.UNKNOWN_COLUMN,
      `Knowledge base '${kb.name}': the rows have no content column '${missing}' (columns: ${src.columns.join(', ')})`,
    );
  const metaAt = def.metadata_columns.map(find);
  const known = new Set(
    [def.id_column, ...def.content_columns, ...def.metadata_columns].map((c) => c.toLowerCase()),
  );
  const extra = src.columns.find((c) => !known.has(c.toLowerCase()));
  if (extra)
    throw new SqlError(
      ErrorCode.UNKNOWN_COLUMN,
      `Unknown column '${extra}' for knowledge base '${kb.name}': it takes ${def.id_column}, ${def.content_columns.join(', ')}${def.metadata_columns.length ? `, ${def.metadata_columns.join(', ')}` : ''}`,
    );
  const counts = { inserted: 0, updated: 0, unchanged: 0, failed: 0 };
  const done = () => counts.inserted + counts.updated + counts.unchanged + counts.failed;
  const started = performance.now();
  let loggedAt = started;
  const progress = () => {
    const rows = done();
    const message = `${rows} rows into knowledge base '${kb.name}' (${counts.inserted} inserted, ${counts.updated} updated, ${counts.unchanged} unchanged, ${counts.failed} failed)`;
    if (opts.onProgress) opts.onProgress(rows, message);
    else if (performance.now() - loggedAt >= LOG_EVERY_MS) {
      loggedAt = performance.now();
      logger.info({ kb: kb.name, ...counts, rows }, 'knowledge base insert in progress');
    }
  };

  let pending = new Map<string, { content: string; metadata: Record<string, unknown> }>();
  // The previous batch's append and fsync run while this batch is embedded (an fsync on a
  // busy disk took longer than embedding a batch). A batch that repeats an id of the batch
  // in flight waits for it, so it is compared with what that batch stored.
  let writing: Promise<void> = Promise.resolve();
  let inFlight = new Set<string>();
  const flush = async () => {
    if (pending.size === 0) return;
    const batch = pending;
    pending = new Map();
    for (const id of batch.keys())
      if (inFlight.has(id)) {
        await writing;
        break;
      }
    const docs: StoredDoc[] = [];
    const toEmbed: { doc: StoredDoc; texts: string[] }[] = [];
    const tally = { inserted: 0, updated: 0, unchanged: 0, failed: 0 };
    const stored = await store.hashes([...batch.keys()]);
    for (const [id, r] of batch) {
      const contentHash = sha(r.content);
      const rowHash = sha(`${contentHash}\u0000${JSON.stringify(r.metadata)}`);
      const old = stored.get(id);
      if (old?.rowHash === rowHash) {
        tally.unchanged++;
        continue;
      }
      const texts = chunkText(r.content, def.preprocessing.chunk_size, def.preprocessing.chunk_overlap);
      if (texts.length === 0) {
        // Nothing to embed or find: not stored (an older version of the row stays as it was).
        tally.failed++;
        continue;
      }
      if (old) tally.updated++;
      else tally.inserted++;
      const doc: StoredDoc = { id, contentHash, rowHash, metadata: r.metadata, chunks: [] };
      if (old?.contentHash === contentHash) {
        // Only metadata changed: the vectors stay, no embedding call.
        const vecs = await store.vectorsOfDoc(id);
        doc.chunks = texts.map((t, i) => ({ chunkId: `${id}:${i}`, content: t, vector: vecs[i] }));
      } else toEmbed.push({ doc, texts });
      docs.push(doc);
    }
    const all = toEmbed.flatMap((x) => x.texts);
    if (all.length) {
      const vectors = await kb.provider.embed(all, opts.signal);
      let i = 0;
      for (const { doc, texts } of toEmbed) {
        doc.chunks = texts.map((t, n) => {
          const v = vectors[i++];
          kb.checkDimension(v);
          return { chunkId: `${doc.id}:${n}`, content: t, vector: v };
        });
      }
    }
    await writing;
    inFlight = new Set(docs.map((d) => d.id));
    writing = (docs.length ? store.put(docs) : Promise.resolve()).then(() => {
      counts.inserted += tally.inserted;
      counts.updated += tally.updated;
      counts.unchanged += tally.unchanged;
      counts.failed += tally.failed;
      kb.onStored?.(tally);
      progress();
    });
    // Not awaited here: a failed write is met by the next flush or the final wait.
    writing.catch(() => {});
  };
  try {
    for await (const rows of src.batches) {
      for (const row of rows) {
        let content = '';
        for (const i of contentAt) {
          const s = text(row[i]);
          if (s !== '') content = content === '' ? s : `${content}\n${s}`;
        }
        const id =
          idAt >= 0 && row[idAt] !== null && row[idAt] !== undefined
            ? text(row[idAt])
            : sha(content).slice(0, 16);
        const metadata: Record<string, unknown> = {};
        for (let i = 0; i < metaAt.length; i++)
          metadata[def.metadata_columns[i]] = metaAt[i] >= 0 ? jsonValue(row[metaAt[i]]) : null;
        // The same id twice in one batch: the later row wins, as an upsert would.
        pending.delete(id);
        pending.set(id, { content, metadata });
        if (pending.size >= BATCH_ROWS) await flush();
      }
    }
    await flush();
    await writing;
  } catch (e) {
    const why = e instanceof Error ? e.message : String(e);
    const code = e instanceof SqlError ? e.code : ErrorCode.SOURCE_ERROR;
    throw new SqlError(
      code,
      `INSERT INTO knowledge base '${kb.name}' stopped after ${done()} rows were stored (${counts.inserted} inserted, ${counts.updated} updated, ${counts.unchanged} unchanged, ${counts.failed} failed; re-run the same INSERT to resume; stored rows are not embedded again): ${why}`,
    );
  }
  logger.info(
    { kb: kb.name, ...counts, ms: Math.round(performance.now() - started) },
    'knowledge base insert',
  );
  return { affected: counts.inserted + counts.updated + counts.unchanged, ...counts };
}

const sha = (s: string) => hash('sha256', s, 'hex');

export function text(v: unknown): string {
  if (v === null || v === undefined) return '';
  if (v instanceof Uint8Array) return Buffer.from(v).toString('utf8');
  return String(v);
}

function jsonValue(v: unknown): unknown {
  if (typeof v === 'bigint') return Number.isSafeInteger(Number(v)) ? Number(v) : v.toString();
  if (v instanceof Uint8Array) return Buffer.from(v).toString('base64');
  return v ?? null;
}
