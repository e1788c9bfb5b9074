import type { ServerResponse } from 'node:http';
import type { FastifyReply } from 'fastify';

/** A request the security gate answers itself: a refusal, or a CORS preflight (204, no body). */
export interface Refusal {
  status: number;
  /** JSON body; none for a preflight. */
  body?: unknown;
}

/** A refusal in the one HTTP error shape outside SQL (docs/reference/http.md, as `sendError` sends it). */
export function refusal(status: number, errorCode: string, message: string): Refusal {
  return { status, body: { error_code: errorCode, message } };
}

export function sendRefusal(reply: FastifyReply, r: Refusal): FastifyReply {
  return r.body === undefined
    ? reply.code(r.status).send()
    : reply.code(r.status).type('application/json').send(r.body);
}

/** The same answer on a raw response (for requests served before Fastify's router). */
export function writeRefusal(res: ServerResponse, r: Refusal): void {
  if (r.body === undefined) {
    res.writeHead(r.status).end();
    return;
  }
  const body = JSON.stringify(r.body);
  res.writeHead(r.status, {
    'content-type': 'application/json; charset=utf-8',
    'content-length': Buffer.byteLength(body),
  });
  res.end(body);
}
