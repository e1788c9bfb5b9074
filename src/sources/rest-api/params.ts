import { z } from 'zod';
import { EgressError } from '../../egress/errors.js';
import { validateHeaders } from '../../egress/headers.js';
import { normalizeAllowedHosts, parseBaseUrl, validatePath } from '../../egress/safe-url.js';

/**
 * `rest_api` parameters (docs/reference/sql.md#engines). Parsing is idempotent: the output is also a valid input,
 * so stored parameters can be parsed again on every call.
 */
export interface RestApiParams {
  /** Normalised: no trailing '/'. */
  base_url: string;
  bearer_token: string;
  default_headers: Record<string, string>;
  /** Normalised host names, or ['*'] when the check is disabled. */
  allowed_hosts: string[];
  test_path: string;
}

/** Runs an egress validator inside zod, turning its refusal into an issue on that parameter. */
function check<T>(ctx: z.RefinementCtx, fn: () => T): T | typeof z.NEVER {
  try {
    return fn();
  } catch (e) {
    ctx.addIssue({ code: 'custom', message: e instanceof EgressError ? e.message : 'invalid value' });
    return z.NEVER;
  }
}

/** A JSON text where a structured value is expected ("All parameter values may be given as strings"). */
function jsonText(v: unknown): unknown {
  if (typeof v !== 'string') return v;
  const t = v.trim();
  if (t.startsWith('{') || t.startsWith('[')) {
    try {
      return JSON.parse(t);
    } catch {
      return v;
    }
  }
  return v;
}

const baseUrl = z.string().transform((v, ctx) => check(ctx, () => parseBaseUrl(v).href));

const bearerToken = z
  .string()
  .min(1, 'bearer_token must not be empty')
  .refine((v) => /^[\t\u0020-\u007e\u0080-\u00ff]+$/.test(v) && v.trim() === v, {
    message: 'bearer_token must be printable text without leading or trailing spaces',
  });

const defaultHeaders = z.preprocess(
  jsonText,
  z
    .record(z.string(), z.string(), { error: 'default_headers must be an object of strings' })
    .transform((v, ctx) => check(ctx, () => ({ ...validateHeaders(v, "'default_headers'") }))),
);

const allowedHosts = z.preprocess(
  (v) => {
    const j = jsonText(v);
    return typeof j === 'string' ? j.split(',').map((s) => s.trim()) : j;
  },
  z
    .array(z.string(), { error: 'allowed_hosts must be a list of host names' })
    .min(1, 'allowed_hosts must name at least one host (or be ["*"])')
    .transform((v, ctx) => check(ctx, () => normalizeAllowedHosts(v))),
);

const testPath = z.string().transform((v, ctx) =>
  check(ctx, () => {
    try {
      return validatePath(v);
    } catch (e) {
      if (e instanceof EgressError)
        throw new EgressError(e.errorCode, e.message.replace("'path'", "'test_path'"));
      throw e;
    }
  }),
);

export const restApiParamsSchema: z.ZodType<RestApiParams> = z
  .strictObject({
    base_url: baseUrl,
    bearer_token: bearerToken,
    default_headers: defaultHeaders.optional(),
    allowed_hosts: allowedHosts.optional(),
    test_path: testPath.optional(),
  })
  .transform((p) => ({
    base_url: p.base_url,
    bearer_token: p.bearer_token,
    default_headers: p.default_headers ?? {},
    // Default: the host of base_url only.
    allowed_hosts: p.allowed_hosts ?? [parseBaseUrl(p.base_url).host],
    test_path: p.test_path ?? '/',
  })) as unknown as z.ZodType<RestApiParams>;

export const restApiParamDocs: Record<string, string> = {
  base_url: 'Base URL of the API, http(s), no credentials, query or fragment (required)',
  bearer_token: 'Token sent as Authorization: Bearer <token> (secret, required)',
  default_headers: 'Object of headers sent on every call (default {})',
  allowed_hosts: 'Host names calls may reach (default: the host of base_url; ["*"] disables the check)',
  test_path: "Path requested by the passthrough test endpoint (default '/')",
};
