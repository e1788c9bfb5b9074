import type { ServerResponse } from 'node:http';
import type { FastifyInstance, FastifyReply } from 'fastify';
import { jsonTooDeep } from '../../core/json-depth.js';
import { decodeUtf8 } from '../../core/utf8.js';

/**
 * Largest MCP message body accepted over HTTP. Set here on purpose (not inherited from
 * the API's limit): a `query` call may carry a long INSERT, so this matches the SDK's
 * own 4 MiB default, which the SDK pieces are given too.
 */
export const MCP_BODY_LIMIT = 4 * 1024 * 1024;

/** What the body parser leaves for a POST whose body is not JSON, so the route can answer -32700. */
export const UNPARSABLE = Symbol('unparsable JSON body');

/**
 * MCP routes read JSON themselves: a malformed body must get a JSON-RPC parse error,
 * not the API's error shape. Registered inside the MCP plugin scope only.
 */
export function useJsonRpcBodyParser(scope: FastifyInstance): void {
  scope.removeAllContentTypeParsers();
  scope.addContentTypeParser(
    'application/json',
    { parseAs: 'buffer', bodyLimit: MCP_BODY_LIMIT },
    (_req, body, done) => {
      // Invalid UTF-8 is a parse error, never silently replaced.
      const text = decodeUtf8(body as Buffer);
      try {
        done(null, text === null || jsonTooDeep(text) ? UNPARSABLE : JSON.parse(text));
      } catch {
        done(null, UNPARSABLE);
      }
    },
  );
}

export function jsonRpcError(res: ServerResponse, status: number, code: number, message: string): void {
  if (res.headersSent) {
    res.end();
    return;
  }
  const body = JSON.stringify({ jsonrpc: '2.0', error: { code, message }, id: null });
  res.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) });
  res.end(body);
}

/**
 * Take the raw response away from Fastify for an SDK transport. Headers that hooks set
 * on the reply (CORS, rate-limit counters) live only in Fastify until it sends, so they
 * are copied onto the raw response first; the SDK's writeHead merges with them.
 */
export function hijack(reply: FastifyReply): ServerResponse {
  const raw = reply.raw;
  for (const [name, value] of Object.entries(reply.getHeaders())) {
    if (value !== undefined && !raw.hasHeader(name)) raw.setHeader(name, value as string | string[] | number);
  }
  reply.hijack();
  return raw;
}

export function isJsonContentType(header: string | undefined): boolean {
  if (!header) return false;
  if (header === 'application/json') return true;
  const type = header.split(';')[0].trim().toLowerCase();
  return type === 'application/json';
}

/**
 * An SSE field block with only `retry`: the client's reconnection delay becomes `ms`; no event
 * is dispatched (an SSE block without data). Written between whole events, before the stream
 * is ended, so the client reconnects (MCP 2025-11-25 Streamable HTTP, "Resumability").
 */
export function writeRetry(res: ServerResponse, ms: number): void {
  if (res.headersSent && !res.writableEnded && !res.destroyed) res.write(`retry: ${ms}\n\n`);
}
