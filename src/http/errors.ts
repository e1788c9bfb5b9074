import type { FastifyReply } from 'fastify';

/** The one HTTP error shape outside SQL (docs/reference/http.md). */
export function sendError(
  reply: FastifyReply,
  status: number,
  errorCode: string,
  message: string,
): FastifyReply {
  return reply.code(status).type('application/json').send({ error_code: errorCode, message });
}

export class HttpError extends Error {
  constructor(
    readonly status: number,
    readonly errorCode: string,
    message: string,
  ) {
    super(message);
  }
}
