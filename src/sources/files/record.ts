/** What the catalog keeps of an uploaded file: the files source owns the shape, the catalog stores it. */
export interface FileRecord {
  name: string;
  format: string;
  rows: number;
  columns: number;
  sizeBytes: number;
  /** Path relative to the storage dir. */
  storagePath: string;
  createdAt: string;
}
