/** What the catalog keeps of an uploaded file: the files source owns the shape, the catalog stores it. */
export interface FileRecord {
  name: string;
  format: string;
  rows: number;
  columns: number;
  sizeBytes: number;
  /** Path relative to the storage dir (with the catalog's byte store, the local cache path). */
  storagePath: string;
  createdAt: string;
  /** sha256 (hex) of the stored bytes; set by the catalog's byte store, which addresses them by it. */
  sha256?: string;
  /** Who stored it (the principal of the upload), when known. */
  uploadedBy?: string;
}
