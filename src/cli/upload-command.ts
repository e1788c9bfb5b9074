import { createReadStream, statSync } from 'node:fs';
import { basename } from 'node:path';
import { Readable } from 'node:stream';
import type { Config } from '../config/types.js';
import { createLogger } from '../core/logger.js';
import { fileJson } from '../http/routes/files.js';
import { parseTypesParam } from '../sources/files/column-types.js';
import { parseDelimiterParam } from '../sources/files/csv-delimiter.js';
import { FileError, FilesSource, tableNameFromFile } from '../sources/files/index.js';
import { closeDeps, createDeps } from './start.js';

export interface UploadArgs {
  url?: string;
  token?: string;
  format?: string;
  sheet?: string;
  types?: string;
  delimiter?: string;
  replace?: boolean;
}

/**
 * `tributary upload FILE [NAME]`. Without --url the file is ingested in-process into the
 * storage dir (no server needed; a server already running on the same storage dir sees
 * the table on first use). With --url it is streamed to that server's PUT /api/files.
 * Prints the stored table as JSON; returns the exit code.
 */
export async function runUploadCommand(
  config: Config,
  positionals: string[],
  args: UploadArgs,
  out: NodeJS.WritableStream = process.stdout,
  err: NodeJS.WritableStream = process.stderr,
): Promise<number> {
  const [path, given] = positionals;
  if (!path) {
    err.write("Usage: tributary upload FILE [NAME] [options]; run 'tributary help upload'\n");
    return 2;
  }
  let size: number;
  try {
    const st = statSync(path);
    if (!st.isFile()) throw new Error('not a regular file');
    size = st.size;
  } catch (e) {
    err.write(`Cannot read '${path}': ${(e as Error).message}\n`);
    return 1;
  }
  const name = given ?? tableNameFromFile(path);
  try {
    const record = args.url
      ? await viaHttp(args.url, path, name, size, args)
      : await inProcess(config, path, name, args);
    out.write(`${JSON.stringify(record)}\n`);
    return 0;
  } catch (e) {
    err.write(`${e instanceof Error ? e.message : String(e)}\n`);
    return 1;
  }
}

async function inProcess(config: Config, path: string, name: string, args: UploadArgs) {
  const deps = await createDeps(config, createLogger('warn', 2, config.logFormat));
  try {
    const files = await deps.sources.get('files');
    if (!(files instanceof FilesSource)) throw new Error('The files source is not available');
    const { record } = await files.ingestLocalFile(name, path, {
      format: args.format ?? null,
      sheet: args.sheet ?? null,
      types: args.types ? parseTypesParam(args.types) : null,
      delimiter: args.delimiter ? parseDelimiterParam(args.delimiter) : null,
      replace: !!args.replace,
      fileName: basename(path),
    });
    return fileJson(record);
  } finally {
    await closeDeps(deps);
  }
}

async function viaHttp(base: string, path: string, name: string, size: number, args: UploadArgs) {
  const q = new URLSearchParams();
  if (args.format) q.set('format', args.format);
  if (args.sheet) q.set('sheet', args.sheet);
  if (args.types) q.set('types', args.types);
  if (args.delimiter) q.set('delimiter', args.delimiter);
  if (args.replace) q.set('replace', 'true');
  // The raw body with the file name's format; the file streams from disk.
  if (!args.format) q.set('format', formatFromName(path));
  const url = `${base.replace(/\/+$/, '')}/api/files/${encodeURIComponent(name)}?${q}`;
  const headers: Record<string, string> = {
    'content-type': 'application/octet-stream',
    'content-length': String(size),
  };
  if (args.token) headers.authorization = `Bearer ${args.token}`;
  const res = await fetch(url, {
    method: 'PUT',
    headers,
    body: Readable.toWeb(createReadStream(path)) as ReadableStream,
    duplex: 'half',
  } as RequestInit);
  const body = (await res.json().catch(() => null)) as { error_code?: string; message?: string } | null;
  if (!res.ok)
    throw new FileError(res.status, body?.error_code ?? 'http_error', body?.message ?? `HTTP ${res.status}`);
  return body;
}

function formatFromName(path: string): string {
  const ext = /\.([A-Za-z0-9]+)$/.exec(path)?.[1]?.toLowerCase();
  if (!ext)
    throw new FileError(400, 'unsupported_format', `Cannot tell the format of '${path}': pass --format`);
  return ext;
}
