import type { z } from 'zod';
import type { Source } from './types.js';

/** Runtime services a source factory may use, passed down (never imported deep inside). */
export interface SourceContext {
  /** Storage dir for engines that keep files (files source). */
  storageDir: string;
  logger: import('pino').Logger;
  /** How long a statement waits for a pooled connection before 1040 (sources.pool_wait_timeout_ms). */
  poolWaitMs?: number;
}

/** One engine in the registry: its parameter schema (zod), which parameters are secret, and a factory. */
export interface EngineSpec<P = Record<string, unknown>> {
  name: string;
  description: string;
  /** zod object; accepts strings for numbers/booleans (docs/reference/sql.md#engines "All parameter values may be given as strings"). */
  params: z.ZodType<P>;
  /** Names of secret parameters: encrypted at rest, never listed. */
  secrets: readonly string[];
  /** Shown by SHOW ENGINES: name → short description (with default). */
  paramDocs: Record<string, string>;
  create(name: string, params: P, ctx: SourceContext): Source;
}
