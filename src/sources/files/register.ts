import { z } from 'zod';
import { ErrorCode, SqlError } from '../../core/errors.js';
import type { EngineSpec } from '../engine-spec.js';
import { registerEngine } from '../registry.js';

/**
 * The `files` engine as SHOW ENGINES lists it (docs/reference/sql.md#engines). Its one source is built in
 * (cli/builtins.ts), so CREATE DATABASE ... WITH ENGINE = 'files' is refused.
 */
export const filesEngine: EngineSpec<Record<string, never>> = {
  name: 'files',
  description: "Built-in source 'files': uploaded CSV, TSV, JSON, NDJSON, Parquet and XLSX files as tables",
  params: z.object({}).strict() as unknown as z.ZodType<Record<string, never>>,
  secrets: [],
  paramDocs: {},
  create() {
    throw new SqlError(
      ErrorCode.NOT_SUPPORTED,
      "The files engine has one built-in source, 'files': upload with PUT /api/files/{name} or `tributary upload`, then query files.<name>",
    );
  },
};

/** Adds the files engine to the registry. Idempotent; importing this module calls it. */
export function registerFilesEngine(): void {
  registerEngine(filesEngine);
}

registerFilesEngine();
