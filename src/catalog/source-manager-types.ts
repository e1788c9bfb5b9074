import type { Source } from '../sources/types.js';
import type { SourceRecord } from './types.js';

/**
 * Live sources: one Source (with its pool) per catalog record, opened on first use,
 * closed on DROP DATABASE, refreshed when another replica changes the catalog.
 */
export interface SourceManager {
  /** Case-insensitive; null when unknown (after re-reading the catalog once). */
  getRecord(name: string): Promise<SourceRecord | null>;
  /** Case-insensitive; throws SqlError 1049 naming the source when unknown. */
  get(name: string): Promise<Source>;
  /** The open source of that name, if one is open now (no catalog read); what `get` would give then. */
  peek?(name: string): Source | undefined;
  /** Names as created, `files` first. */
  names(): Promise<string[]>;
  /** What `names` would give, when it is known without a catalog read (the statement path skips an await). */
  namesNow?(): string[] | undefined;
  /** Validate params against the engine schema, test the connection, then store. Throws SqlError. */
  create(
    name: string,
    engine: string,
    params: Record<string, unknown>,
    opts?: { ifNotExists?: boolean },
  ): Promise<void>;
  /** Close pools and remove from the catalog. Throws SqlError 1008 unless ifExists. */
  drop(name: string, opts?: { ifExists?: boolean }): Promise<void>;
  close(): Promise<void>;
}
