import busboy from 'busboy';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { FileRecord } from '../../catalog/types.js';
import { asStorageFull, StorageFullError } from '../../core/storage-full.js';
import { parseTypesParam } from '../../sources/files/column-types.js';
import { type Delimiter, parseDelimiterParam } from '../../sources/files/csv-delimiter.js';
import { FileError, FilesSource, ROWS_UNKNOWN } from '../../sources/files/index.js';
import { tooLarge } from '../../sources/files/receive.js';
import type { AppDeps } from '../deps.js';
import { sendError } from '../errors.js';

interface Params {
  name: string;
}
interface Query {
  format?: string;
  sheet?: string;
  replace?: string;
  types?: string;
  delimiter?: string;
}

/**
 * The JSON shape of a file table in responses (GET /api/files items, PUT answers). `rows`
 * is null while a large CSV is still stored as CSV: it is counted by its conversion.
 */
export function fileJson(r: FileRecord) {
  return {
    name: r.name,
    format: r.format,
    rows: r.rows === ROWS_UNKNOWN ? null : r.rows,
    columns: r.columns,
    size_bytes: r.sizeBytes,
    created_at: r.createdAt,
    // 'parquet' once ingested; 'csv'/'tsv' while a large upload waits for its background conversion.
    stored_as: r.storagePath.slice(r.storagePath.lastIndexOf('.') + 1),
  };
}

const TRUE = new Set(['1', 'true', 'on', 'yes', 'y']);
const FALSE = new Set(['', '0', 'false', 'off', 'no', 'n']);

/**
 * Files API (docs/reference/http.md): PUT /api/files/{name} (multipart `file` field or the raw body),
 * GET /api/files, DELETE /api/files/{name}. The upload body is never parsed by Fastify:
 * it streams to a temp file under the size limit (files.max_upload_bytes).
 */
export function registerFileRoutes(app: FastifyInstance, deps: AppDeps): void {
  const files = async (): Promise<FilesSource> => {
    const s = await deps.sources.get('files');
    if (!(s instanceof FilesSource))
      throw new FileError(500, 'internal_error', 'The files source is not available');
    return s;
  };
  const fail = (reply: FastifyReply, e: unknown) => {
    if (e instanceof FileError) return sendError(reply, e.status, e.errorCode, e.message);
    const full = asStorageFull(e, deps.config.storageDir, 'storing the file');
    if (full instanceof StorageFullError) {
      deps.logger.warn({ dir: full.dir, code: full.code }, 'files: the storage dir is full');
      return sendError(reply, 507, 'storage_full', full.message);
    }
    deps.logger.error({ err: { message: (e as Error)?.message } }, 'files: request failed');
    return sendError(reply, 500, 'internal_error', 'Internal server error');
  };

  app.get('/api/files', async (_request, reply) => {
    try {
      return (await (await files()).list()).map(fileJson);
    } catch (e) {
      return fail(reply, e);
    }
  });

  app.delete<{ Params: Params }>('/api/files/:name', async (request, reply) => {
    try {
      const name = request.params.name;
      if (!(await (await files()).remove(name))) {
        return sendError(reply, 404, 'file_not_found', `No file table named '${name.slice(0, 80)}'`);
      }
      return reply.code(204).send();
    } catch (e) {
      return fail(reply, e);
    }
  });

  // Its own scope so the pass-through body parser applies to this route only.
  app.register(async (scope) => {
    scope.removeAllContentTypeParsers();
    scope.addContentTypeParser('*', (_request, _payload, done) => done(null));
    // POST is the same upload (what HTML forms and many clients send), raw or multipart.
    scope.route<{ Params: Params; Querystring: Query }>({
      method: ['PUT', 'POST'],
      url: '/api/files/:name',
      handler: async (request, reply) => {
        try {
          return await upload(request, reply, await files(), deps.config.files.max_upload_bytes);
        } catch (e) {
          // A refused upload may still be arriving. Clients that send the whole body before
          // reading the answer (Python's urllib and requests) would see a reset connection
          // if it closed now, so the rest of a body within the upload limit is read and
          // dropped first; a longer one is cut.
          if (!request.raw.readableEnded && !(await drainBody(request, deps.config.files.max_upload_bytes)))
            reply.header('connection', 'close');
          return fail(reply, e);
        }
      },
    });
  });
}

/**
 * Reads and drops what is left of a request body, up to `limit` bytes in all (the
 * multipart envelope adds a little). True once it ended; false when it is longer (or
 * declares so), broke off, or the socket is gone: then the connection is to be closed.
 */
function drainBody(request: FastifyRequest, limit: number): Promise<boolean> {
  const body = request.raw;
  const cap = limit + 64 * 1024;
  const declared = Number(request.headers['content-length'] ?? Number.NaN);
  if (body.destroyed || (Number.isFinite(declared) && declared > cap)) return Promise.resolve(false);
  return new Promise((resolve) => {
    let seen = 0;
    const done = (ok: boolean) => {
      body.removeListener('data', onData);
      body.removeListener('end', onEnd);
      body.removeListener('error', onEnd);
      body.removeListener('close', onClose);
      if (!ok) body.pause();
      resolve(ok);
    };
    const onData = (chunk: Buffer) => {
      seen += chunk.length;
      if (seen > cap) done(false);
    };
    const onEnd = () => done(body.readableEnded);
    const onClose = () => done(body.readableEnded);
    body.on('data', onData);
    body.once('end', onEnd);
    body.once('error', onEnd);
    body.once('close', onClose);
    body.resume();
  });
}

async function upload(
  request: FastifyRequest<{ Params: Params; Querystring: Query }>,
  reply: FastifyReply,
  files: FilesSource,
  maxBytes: number,
) {
  const { name } = request.params;
  const q = request.query ?? {};
  const replaceText = String(q.replace ?? '').toLowerCase();
  if (!TRUE.has(replaceText) && !FALSE.has(replaceText)) {
    throw new FileError(
      400,
      'invalid_request',
      `Invalid replace '${replaceText.slice(0, 20)}': use true or false`,
    );
  }
  const replace = TRUE.has(replaceText);
  files.precheck(name, replace);
  const length = Number(request.headers['content-length'] ?? Number.NaN);
  const contentType = request.headers['content-type'] ?? null;
  const isMultipart = /^multipart\/form-data/i.test(contentType ?? '');
  // The multipart envelope adds a little; the file inside is held to the limit itself.
  if (Number.isFinite(length) && length > maxBytes + (isMultipart ? 64 * 1024 : 0)) throw tooLarge(maxBytes);
  const types = q.types ? parseTypesParam(String(q.types)) : null;
  const delimiter = q.delimiter !== undefined ? parseDelimiterParam(String(q.delimiter)) : null;
  const uploadedBy = request.principal?.id ?? null;
  const opts = {
    format: q.format ?? null,
    sheet: q.sheet ?? null,
    types,
    delimiter,
    replace,
    maxBytes,
    uploadedBy,
  };
  const stored = isMultipart
    ? await fromMultipart(request, files, name, opts)
    : await files.upload(name, request.raw, {
        ...opts,
        contentType,
      });
  const body =
    stored.sheet === undefined
      ? fileJson(stored.record)
      : { ...fileJson(stored.record), sheet: stored.sheet };
  return reply.code(stored.created ? 201 : 200).send(body);
}

/** The `file` part of a multipart body, streamed to the files source as it arrives. */
function fromMultipart(
  request: FastifyRequest,
  files: FilesSource,
  name: string,
  opts: {
    format: string | null;
    sheet: string | null;
    types: Map<string, string> | null;
    delimiter: Delimiter | null;
    replace: boolean;
    maxBytes: number;
    uploadedBy: string | null;
  },
): ReturnType<FilesSource['upload']> {
  return new Promise((resolve, reject) => {
    let bb: busboy.Busboy;
    try {
      bb = busboy({
        headers: request.headers,
        limits: { files: 1, fields: 20, fieldSize: 64 * 1024 },
      });
    } catch (e) {
      reject(new FileError(400, 'invalid_request', `Malformed multipart body: ${(e as Error).message}`));
      return;
    }
    let started = false;
    let settled = false;
    const settle = (fn: () => void) => {
      if (settled) return;
      settled = true;
      request.raw.unpipe(bb);
      fn();
    };
    bb.on('file', (field, stream, info) => {
      if (field !== 'file' || started) {
        stream.resume();
        return;
      }
      started = true;
      const fileName = info.filename ?? null;
      const partType = info.mimeType && info.mimeType !== 'application/octet-stream' ? info.mimeType : null;
      files.upload(name, stream, { ...opts, fileName, contentType: partType }).then(
        (r) => settle(() => resolve(r)),
        (e) => {
          stream.resume();
          settle(() => reject(e));
        },
      );
    });
    bb.on('error', (e: unknown) =>
      settle(() =>
        reject(new FileError(400, 'invalid_request', `Malformed multipart body: ${(e as Error).message}`)),
      ),
    );
    bb.on('close', () => {
      if (!started)
        settle(() => reject(new FileError(400, 'invalid_request', "The multipart body has no 'file' field")));
    });
    request.raw.on('error', (e) => settle(() => reject(e)));
    request.raw.pipe(bb);
  });
}
