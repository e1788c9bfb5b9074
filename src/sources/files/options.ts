import type { Logger } from 'pino';
import type { FileBytes } from './bytes.js';
import type { FileRecord } from './record.js';

export interface FileRecordStore {
  listFiles(): Promise<FileRecord[]>;
  putFile(rec: FileRecord): Promise<void>;
  deleteFile(name: string, beforeWrite?: () => Promise<void>): Promise<boolean>;
  /** Called when another process (a replica) registered, replaced or removed a file. */
  onFilesChanged?(listener: () => void): void;
  /**
   * A value that changes with every change of files by any process (a shared catalog):
   * compared before each statement, so one never reads what another replica replaced or
   * dropped before it was asked.
   */
  filesVersion?(): Promise<string>;
}

export interface FilesSourceOptions {
  storageDir: string;
  store: FileRecordStore;
  /** Where stored files' bytes live (default: LocalFileBytes on the storage dir). */
  bytes?: FileBytes;
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
