/**
 * A full storage disk is an answer, not an outage: the write that met ENOSPC (or a quota,
 * EDQUOT) becomes this error, which names the storage dir and how to free space. HTTP
 * answers it 507 Insufficient Storage; SQL answers 1021 (MySQL's "Disk full").
 */
export class StorageFullError extends Error {
  constructor(
    readonly dir: string,
    /** What could not be written ("writing the catalog", "storing the upload"...). */
    readonly doing: string,
    readonly code: string,
  ) {
    super(
      `The storage dir ${dir} is full (${code}): ${doing} needs space there. Free space on that disk ` +
        '(DELETE /api/files/{name} frees an uploaded file), or point TRIBUTARY_STORAGE_DIR at a larger one',
    );
    this.name = 'StorageFullError';
  }
}

/** Whether an error is the disk (or the user's quota) being full. */
export function isNoSpace(e: unknown): e is NodeJS.ErrnoException {
  const code = (e as NodeJS.ErrnoException | null)?.code;
  return code === 'ENOSPC' || code === 'EDQUOT';
}

/** `e` as a StorageFullError when it is a full disk, else itself. */
export function asStorageFull(e: unknown, dir: string, doing: string): unknown {
  if (e instanceof StorageFullError || !isNoSpace(e)) return e;
  return new StorageFullError(dir, doing, e.code ?? 'ENOSPC');
}
