import { RowScanner, type RowWindow } from './row-stream.js';

/** The HTTP API as the page uses it. The token lives in this module's memory only. */

export interface TableResult {
  type: 'table';
  column_names: string[];
  column_types?: string[];
  data: unknown[][];
  /** Rows in the whole result, when `data` holds a window of them (row-stream.ts). */
  total?: number;
  /** Index of `data`'s first row in the whole result. */
  offset?: number;
  /** A streamed result that failed after its first rows (docs/reference/http.md). */
  error?: ErrorResult;
}
export interface OkResult {
  type: 'ok';
  affected_rows?: number;
  [k: string]: unknown;
}
export interface ErrorResult {
  type: 'error';
  error_code: number | string;
  error_message: string;
}
export type Result = TableResult | OkResult | ErrorResult;

/** An answer the page cannot use: an HTTP error shape, a network failure, an abort. */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
  ) {
    super(message);
  }
}

let token: string | null = null;
let onUnauthorized: () => void = () => {};

export function setToken(t: string | null): void {
  token = t;
}
export function hasToken(): boolean {
  return token !== null;
}
export function whenUnauthorized(fn: () => void): void {
  onUnauthorized = fn;
}

function headers(extra: Record<string, string> = {}): Record<string, string> {
  return token ? { ...extra, authorization: `Bearer ${token}` } : extra;
}

async function failure(res: Response): Promise<ApiError> {
  let code = `http_${res.status}`;
  let message = `${res.status} ${res.statusText}`;
  try {
    const body = (await res.json()) as { error_code?: string; message?: string; error?: string };
    code = body.error_code ?? body.error ?? code;
    message = body.message ?? message;
  } catch {
    // not JSON: keep the status line
  }
  return new ApiError(res.status, code, message);
}

/**
 * One request to the server, answered or thrown as an ApiError: a network failure, a
 * cancellation, a 401 (which sends the page back to the login form when a token stopped
 * working) or another failing status. `call` and `sqlWindow` read the body their own way.
 */
async function send(method: string, path: string, body: unknown, signal?: AbortSignal): Promise<Response> {
  let res: Response;
  try {
    res = await fetch(path, {
      method,
      headers: headers(body === undefined ? {} : { 'content-type': 'application/json' }),
      body: body === undefined ? undefined : JSON.stringify(body),
      signal,
      credentials: 'omit',
      cache: 'no-store',
    });
  } catch (e) {
    throw cancelledOr(
      e,
      new ApiError(0, 'network_error', `The server could not be reached: ${(e as Error).message}`),
    );
  }
  if (res.status === 401) {
    const err = await failure(res);
    // Only a token that stopped working sends the page back; without one the caller decides.
    if (token !== null && path !== '/api/login') onUnauthorized();
    throw err;
  }
  if (!res.ok) throw await failure(res);
  return res;
}

/** An abort is a cancellation; anything else is `other`. */
function cancelledOr(e: unknown, other: ApiError): ApiError {
  return (e as Error).name === 'AbortError' ? new ApiError(0, 'cancelled', 'Cancelled') : other;
}

/** A JSON call; 401 sends the page back to the login form. */
export async function call<T>(
  method: string,
  path: string,
  body?: unknown,
  signal?: AbortSignal,
): Promise<T> {
  const res = await send(method, path, body, signal);
  if (res.status === 204) return undefined as T;
  try {
    return (await res.json()) as T;
  } catch (e) {
    throw cancelledOr(
      e,
      new ApiError(res.status, 'bad_response', `The answer could not be read: ${(e as Error).message}`),
    );
  }
}

/**
 * A statement whose rows are read as they arrive (row-stream.ts): `data` keeps the window
 * asked for (so a result of millions of rows does not sit in the page), `total` counts them all.
 */
export async function sqlWindow(
  query: string,
  window: RowWindow,
  signal?: AbortSignal,
  db?: string,
): Promise<Result> {
  const res = await send('POST', '/api/sql/query', db ? { query, context: { db } } : { query }, signal);
  if (!res.body) throw await failure(res);
  const scanner = new RowScanner(window);
  const reader = res.body.pipeThrough(new TextDecoderStream()).getReader();
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      scanner.push(value);
    }
    return scanner.end() as Result;
  } catch (e) {
    throw cancelledOr(
      e,
      new ApiError(res.status, 'bad_response', `The answer could not be read: ${(e as Error).message}`),
    );
  }
}

export function sql(query: string, signal?: AbortSignal, db?: string): Promise<Result> {
  return call<Result>('POST', '/api/sql/query', db ? { query, context: { db } } : { query }, signal);
}

/** A statement whose rows the page needs (schema, lists): an error result becomes an ApiError. */
export async function rows(query: string): Promise<TableResult> {
  const r = await sql(query);
  if (r.type === 'error') throw new ApiError(200, String(r.error_code), r.error_message);
  if (r.type !== 'table') return { type: 'table', column_names: [], data: [] };
  if (r.error) throw new ApiError(200, String(r.error.error_code), r.error.error_message);
  return r;
}

export interface Upload {
  done: Promise<unknown>;
  abort(): void;
}

/** PUT /api/files/{name} as multipart, reporting upload progress (fetch cannot). */
export function uploadFile(
  name: string,
  file: File,
  replace: boolean,
  onProgress: (sent: number, total: number) => void,
): Upload {
  const xhr = new XMLHttpRequest();
  const done = new Promise<unknown>((resolve, reject) => {
    xhr.open('PUT', `/api/files/${encodeURIComponent(name)}${replace ? '?replace=true' : ''}`);
    if (token) xhr.setRequestHeader('authorization', `Bearer ${token}`);
    xhr.upload.onprogress = (e) => onProgress(e.loaded, e.lengthComputable ? e.total : file.size);
    xhr.onload = () => {
      let body: { error_code?: string; message?: string } | null = null;
      try {
        body = JSON.parse(xhr.responseText);
      } catch {
        body = null;
      }
      if (xhr.status === 401 && token !== null) onUnauthorized();
      if (xhr.status >= 200 && xhr.status < 300) resolve(body);
      else
        reject(
          new ApiError(xhr.status, body?.error_code ?? `http_${xhr.status}`, body?.message ?? xhr.statusText),
        );
    };
    xhr.onerror = () => reject(new ApiError(0, 'network_error', 'The upload could not reach the server'));
    xhr.onabort = () => reject(new ApiError(0, 'cancelled', 'Upload cancelled'));
    const form = new FormData();
    form.append('file', file, file.name);
    xhr.send(form);
  });
  return { done, abort: () => xhr.abort() };
}
