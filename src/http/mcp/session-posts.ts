import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Logger } from 'pino';
import { jsonTooDeep, MAX_JSON_DEPTH } from '../../core/json-depth.js';
import { decodeUtf8 } from '../../core/utf8.js';
import { isJsonContentType, jsonRpcError, MCP_BODY_LIMIT } from '../../mcp/transports/http-util.js';
import type { StreamableEndpoint } from '../../mcp/transports/streamable.js';
import { type GateOutcome, isRefusal, type SecurityGate } from '../hooks/gate.js';
import { writeRefusal } from '../hooks/refusal.js';
import type { EarlyHandler } from '../server.js';

/** `/mcp` is the same endpoint as `/mcp/streamable` (transports/http.ts). */
const PATHS = new Set(['/mcp/streamable', '/mcp']);

/**
 * POSTs to a live Streamable HTTP session (almost every MCP message: tool calls,
 * notifications), served before Fastify's router. Fastify's request and reply objects,
 * its hook chain and its body parser cost about a tenth of a point lookup's CPU.
 *
 * Only the plain case is taken, judged on headers alone: exactly this path, an open
 * session's id, a JSON body of declared length within the MCP limit. Anything else (a
 * query string, chunked or oversized bodies, other methods, unknown sessions) goes to
 * Fastify's route, which answers it as before. A taken request passes the same security
 * gate as Fastify's onRequest hook, before its body is read, and gets the same answers.
 */
export function sessionPosts(gate: SecurityGate, streamable: StreamableEndpoint, log: Logger): EarlyHandler {
  const live = (id: string) => streamable.hasSession(id);
  return (req, res) => {
    const length = plainSessionPost(req, live);
    if (length === null) return false;
    void serve(req, res, length, gate, streamable, log);
    return true;
  };
}

/** The declared body length of a request this path takes; null for one it leaves to Fastify. */
export function plainSessionPost(
  req: Pick<IncomingMessage, 'method' | 'url' | 'headers'>,
  live: (sessionId: string) => boolean,
): number | null {
  if (req.method !== 'POST' || !PATHS.has(req.url ?? '')) return null;
  const h = req.headers;
  const sid = h['mcp-session-id'];
  if (typeof sid !== 'string' || !live(sid)) return null;
  if (h['transfer-encoding'] !== undefined || !isJsonContentType(h['content-type'])) return null;
  const declared = h['content-length'];
  if (declared === undefined || !/^\d{1,8}$/.test(declared)) return null;
  const length = Number(declared);
  return length <= MCP_BODY_LIMIT ? length : null;
}

/**
 * Callbacks rather than async functions: each await here was a measurable share of a
 * point lookup, and the gate answers synchronously unless a check needs I/O.
 */
function serve(
  req: IncomingMessage,
  res: ServerResponse,
  length: number,
  gate: SecurityGate,
  streamable: StreamableEndpoint,
  log: Logger,
): void {
  const fail = (e: unknown) => {
    log.error({ err: (e as Error).message }, 'mcp streamable request failed');
    jsonRpcError(res, 500, -32603, 'Internal server error');
  };
  const admitted = (outcome: GateOutcome) => {
    if (isRefusal(outcome)) {
      // The body is not read for a refused caller; it is drained so the connection stays usable.
      req.resume();
      writeRefusal(res, outcome);
      return;
    }
    readBody(req, length, (bytes) => {
      const text = decodeUtf8(bytes);
      if (text === null) {
        jsonRpcError(res, 400, -32700, 'Parse error: the body is not valid UTF-8');
        return;
      }
      if (jsonTooDeep(text)) {
        jsonRpcError(res, 400, -32700, `Parse error: the body nests deeper than ${MAX_JSON_DEPTH} levels`);
        return;
      }
      let body: unknown;
      try {
        body = JSON.parse(text);
      } catch {
        jsonRpcError(res, 400, -32700, 'Parse error: the body is not valid JSON');
        return;
      }
      streamable.handle(req, res, body, outcome.principal).catch(fail);
    });
  };
  try {
    const checked = gate.check(
      { method: 'POST', path: req.url ?? '', headers: req.headers, ip: gate.clientIp(req) },
      res,
    );
    if (checked instanceof Promise) checked.then(admitted, fail);
    else admitted(checked);
  } catch (e) {
    fail(e);
  }
}

/** Calls `done` with the body once all of it is in; never when the client goes away first. */
function readBody(req: IncomingMessage, length: number, done: (body: Buffer) => void): void {
  const chunks: Buffer[] = [];
  let got = 0;
  req.on('data', (c: Buffer) => {
    chunks.push(c);
    got += c.length;
  });
  req.on('end', () => {
    if (got !== length) return;
    done(chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks, got));
  });
  // An aborted upload: there is no one left to answer.
  req.on('error', () => {});
}
