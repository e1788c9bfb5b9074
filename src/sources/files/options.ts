import type { Logger } from 'pino';
import type { FileRecord } from './record.js';

export interface FileRecordStore {
  listFiles(): Promise<FileRecord[]>;
  putFile(rec: FileRecord): Promise<void>;
  deleteFile(name: string, beforeWrite?: () => Promise<void>): Promise<boolean>;
}

export interface FilesSourceOptions {
  storageDir: string;
  store: FileRecordStore;
  logger: Logger;
  /** DuckDB memory limit for ingest and queries (spills to disk past it). */
  memoryLimit?: string;
  threads?: number;
  /** Memory limit of the DuckDB that ingests one upload (default 128MB; spills to disk past it). */
  ingestMemoryLimit?: string;
  /**
   * CSV/TSV uploads larger than this (bytes; default 8 MiB) are answered once received and
   * checked, queried over the CSV meanwhile, and converted to Parquet in the background.
   * Smaller ones convert before the answer: that costs less than the CSV scan it saves.
   */
  convertLaterAbove?: number;
  /** Quiet time (ms) before a background conversion starts (default 500). */
  convertIdleMs?: number;
}
