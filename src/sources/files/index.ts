export { FileError } from './errors.js';
export { type FileFormat, FORMATS } from './formats.js';
export { checkTableName, tableNameFromFile } from './names.js';
export {
  type FileBytes,
  type FileRecordStore,
  FilesSource,
  type FilesSourceOptions,
  hashFile,
  LocalFileBytes,
  ROWS_UNKNOWN,
  type StoredFile,
  type UploadOptions,
} from './source.js';
