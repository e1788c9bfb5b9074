/** docs/reference/http.md#rest-passthrough error codes of the passthrough, with the HTTP status each maps to on the passthrough endpoint. */
export const EGRESS_STATUS = {
  invalid_request: 400,
  datasource_not_found: 404,
  not_passthrough: 400,
  host_not_allowed: 403,
  private_address: 403,
  request_too_large: 413,
  response_too_large: 502,
  upstream_timeout: 504,
  upstream_unreachable: 502,
  too_many_redirects: 502,
  invalid_upstream_response: 502,
  // Only reported by the test endpoint (always HTTP 200 there); the status here is never sent.
  auth_failed: 502,
  upstream_error: 502,
} as const;

export type EgressErrorCode = keyof typeof EGRESS_STATUS;

/**
 * An outbound call refused or failed. Messages are written by us, never copied from a
 * library error, so they cannot carry a header value or the token.
 */
export class EgressError extends Error {
  readonly errorCode: EgressErrorCode;
  readonly status: number;
  constructor(errorCode: EgressErrorCode, message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'EgressError';
    this.errorCode = errorCode;
    this.status = EGRESS_STATUS[errorCode];
  }
}

export function isEgressError(e: unknown): e is EgressError {
  return e instanceof EgressError;
}
