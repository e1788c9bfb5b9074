import type { Readable } from 'node:stream';
import type { FieldInfo, Row } from '../core/types.js';
import { interrupted } from './error-util.js';
import type { QueryStream } from './types.js';

export const DEFAULT_BATCH_ROWS = 2000;

/** Clamp the caller's batch hint to something that neither floods memory nor costs a round trip per row. */
export function batchSize(hint: number | undefined): number {
  if (!hint || !Number.isFinite(hint)) return DEFAULT_BATCH_ROWS;
  return Math.min(Math.max(Math.floor(hint), 100), 50_000);
}

/** What an engine provides to turn one running query into a QueryStream. */
export interface RowReader {
  /** The next batch, or null at the end. */
  next(): Promise<Row[] | null>;
  /** Stop work in flight on the source (a read may be pending); release follows. */
  cancel(): Promise<void>;
  /** Give the connection back (each reader knows whether it is still fit for reuse). */
  release(): Promise<void>;
}

/**
 * One QueryStream over a RowReader: release happens exactly once (end, error, consumer
 * break, cancel() or abort). After cancel() the batches just end; after an abort through
 * the signal they throw 1317, so a partial result is never mistaken for a whole one.
 */
export function makeQueryStream(
  source: string,
  columns: FieldInfo[],
  reader: RowReader,
  signal?: AbortSignal,
  mapError: (e: unknown) => unknown = (e) => e,
  /** False when the caller already listens to `signal` and calls `cancel()` on abort itself. */
  listen = true,
): QueryStream {
  let released: Promise<void> | null = null;
  let cancelling: Promise<void> | null = null;
  let stopped = false;
  const release = () => {
    released ??= reader.release().catch(() => {});
    return released;
  };
  const cancel = () => {
    if (!cancelling) {
      stopped = true;
      cancelling = (released ? Promise.resolve() : reader.cancel().catch(() => {})).then(release);
    }
    return cancelling;
  };
  const onAbort = () => void cancel();
  if (listen) signal?.addEventListener('abort', onAbort, { once: true });

  async function* batches(): AsyncGenerator<Row[]> {
    try {
      while (!stopped) {
        let batch: Row[] | null;
        try {
          batch = await reader.next();
        } catch (e) {
          if (stopped) break;
          throw mapError(e);
        }
        if (batch === null || stopped) break;
        if (batch.length) yield batch;
      }
      if (signal?.aborted) throw interrupted(source);
    } finally {
      if (listen) signal?.removeEventListener('abort', onAbort);
      if (cancelling) await cancelling;
      else await release();
    }
  }
  return { columns, batches: batches(), cancel };
}

/**
 * Row batches from an object-mode Readable, reading synchronously while rows are buffered
 * (one promise per batch, not per row); backpressure is the stream's own.
 */
export async function* readableBatches<T>(stream: Readable, size: number): AsyncGenerator<T[]> {
  let batch: T[] = [];
  for (;;) {
    for (let item: T | null = stream.read(); item !== null; item = stream.read()) {
      batch.push(item);
      if (batch.length >= size) {
        yield batch;
        batch = [];
      }
    }
    if (stream.errored) throw stream.errored;
    if (stream.readableEnded || stream.destroyed) break;
    await new Promise<void>((resolve) => {
      const done = () => {
        stream.off('readable', done);
        stream.off('end', done);
        stream.off('error', done);
        stream.off('close', done);
        resolve();
      };
      stream.on('readable', done);
      stream.on('end', done);
      stream.on('error', done);
      stream.on('close', done);
    });
  }
  if (batch.length) yield batch;
}

/** Lets I/O run between batches of synchronous drivers. */
export function yieldToLoop(): Promise<void> {
  return new Promise((resolve) => setImmediate(resolve));
}
