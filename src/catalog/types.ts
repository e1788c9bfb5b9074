import type { FileRecord } from '../sources/files/record.js';

export type { FileRecord };

/**
 * The catalog: which sources exist, their parameters (secrets encrypted at rest),
 * auth tokens (hashes only) and uploaded files. Two implementations: embedded (a file
 * under the storage dir) and PostgreSQL (TRIBUTARY_CATALOG_URL, shared by replicas).
 */
export interface SourceRecord {
  /** Stable random id; part of the associated data of encrypted secrets. */
  id: string;
  /** As created; lookups are case-insensitive. */
  name: string;
  engine: string;
  /** Parameters with secrets in clear (in memory only; the store encrypts them). */
  params: Record<string, unknown>;
  createdAt: string;
}

export interface TokenRecord {
  /** sha256 hex of the token; the token itself is never stored. */
  hash: string;
  username: string;
  createdAt: string;
  expiresAt: string;
}

/**
 * A knowledge base's definition (docs/reference/sql.md, knowledge bases). `params` holds
 * the embedding model's `api_key` in clear in memory only; the stores seal it.
 */
export interface KnowledgeBaseRecord {
  id: string;
  /** As created; lookups are case-insensitive. */
  name: string;
  params: Record<string, unknown>;
  createdAt: string;
}

export interface CatalogStore {
  init(): Promise<void>;
  listSources(): Promise<SourceRecord[]>;
  /** Case-insensitive. */
  getSource(name: string): Promise<SourceRecord | null>;
  /** Throws CatalogConflictError when a source of that name (case-insensitive) exists. `secrets` names the params to encrypt. */
  createSource(rec: SourceRecord, secrets: readonly string[]): Promise<void>;
  /** Returns false when it did not exist. */
  deleteSource(name: string): Promise<boolean>;
  /**
   * Seal, in place, parameters stored in the clear that are secret now (a parameter made
   * secret after sources were created with it). Returns how many sources changed.
   */
  sealSecrets(secretsOf: (engine: string) => readonly string[]): Promise<number>;

  putToken(rec: TokenRecord): Promise<void>;
  getToken(hash: string): Promise<TokenRecord | null>;
  deleteToken(hash: string): Promise<void>;

  listFiles(): Promise<FileRecord[]>;
  getFile(name: string): Promise<FileRecord | null>;
  putFile(rec: FileRecord): Promise<void>;
  /**
   * `beforeWrite` runs just before the record goes, under the store's write lock (the
   * embedded store frees the file's bytes there when the disk is full).
   */
  deleteFile(name: string, beforeWrite?: () => Promise<void>): Promise<boolean>;

  listKnowledgeBases(): Promise<KnowledgeBaseRecord[]>;
  /** Throws CatalogConflictError when `create` and a KB of that name exists; otherwise replaces it (ALTER). */
  putKnowledgeBase(rec: KnowledgeBaseRecord, create: boolean): Promise<void>;
  /** Returns false when it did not exist. */
  deleteKnowledgeBase(name: string): Promise<boolean>;

  /** Called when another process changed sources (PostgreSQL LISTEN/NOTIFY; file change). */
  onSourcesChanged(listener: () => void): void;
  /** Called when another process created, altered or dropped a knowledge base (PostgreSQL LISTEN/NOTIFY). */
  onKnowledgeBasesChanged?(listener: () => void): void;
  /** Called when another process registered, replaced or removed a file (PostgreSQL LISTEN/NOTIFY). */
  onFilesChanged?(listener: () => void): void;
  close(): Promise<void>;
}

export class CatalogConflictError extends Error {}
