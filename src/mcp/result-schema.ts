import type { StandardSchemaWithJSON } from '@modelcontextprotocol/server';
import type { Result } from '../sql/result.js';

/**
 * The `query` tool's output schema: docs/reference/sql.md's result object under `result`.
 *
 * Written as JSON Schema by hand rather than derived from zod because the SDK validates
 * every tool result against it: zod would walk each row of a 10,000-row answer. The
 * engine builds these objects itself, so checking the envelope (type and its keys) is
 * enough to catch a programming error, and costs nothing per row.
 */
const RESULT_JSON_SCHEMA = {
  type: 'object',
  properties: {
    result: {
      description: 'The statement result, the same object POST /api/sql/query returns.',
      oneOf: [
        {
          type: 'object',
          description:
            'Rows. When the answer was cut to fit api.mcp.max_rows / api.mcp.max_result_bytes, `truncated` (true) and the fields after it say so; they are absent otherwise.',
          properties: {
            type: { const: 'table' },
            column_names: { type: 'array', items: { type: 'string' } },
            truncated: { const: true },
            rows_returned: { type: 'integer', description: 'Rows in data.' },
            rows_available: { type: 'integer', description: 'Rows of the whole result, when known.' },
            more_than: { type: 'integer', description: 'Otherwise: the result has more rows than this.' },
            handle: { type: 'string', description: 'Names the kept rows: SELECT * FROM result(handle).' },
            next: { type: 'string', description: 'The statement that reads the following rows.' },
            hint: { type: 'string', description: 'How to page on or narrow the question.' },
            data: { type: 'array', items: { type: 'array' } },
          },
          required: ['type', 'column_names', 'data'],
        },
        {
          type: 'object',
          description:
            'A write or DDL statement succeeded; affected_rows is null when the source does not say. INSERT INTO a knowledge base adds inserted, updated, unchanged and failed row counts.',
          properties: {
            type: { const: 'ok' },
            affected_rows: { type: ['integer', 'null'] },
            inserted: { type: 'integer' },
            updated: { type: 'integer' },
            unchanged: { type: 'integer' },
            failed: { type: 'integer' },
          },
          required: ['type', 'affected_rows'],
        },
        {
          type: 'object',
          description: 'The statement failed; error_code is a MySQL server error code.',
          properties: {
            type: { const: 'error' },
            error_code: { type: 'integer' },
            error_message: { type: 'string' },
          },
          required: ['type', 'error_code', 'error_message'],
        },
      ],
    },
  },
  required: ['result'],
} as const;

function envelopeProblem(value: unknown): string | null {
  if (!value || typeof value !== 'object') return 'structured content must be an object';
  const r = (value as { result?: unknown }).result as Record<string, unknown> | undefined;
  if (!r || typeof r !== 'object') return 'result must be an object';
  switch (r.type) {
    case 'table':
      if (!Array.isArray(r.column_names) || !Array.isArray(r.data))
        return 'table result needs column_names and data';
      if (r.truncated !== undefined && r.truncated !== true) return 'truncated may only be true';
      return r.truncated ? truncationProblem(r) : null;
    case 'ok':
      return r.affected_rows === null || Number.isInteger(r.affected_rows)
        ? null
        : 'affected_rows must be an integer or null';
    case 'error':
      return Number.isInteger(r.error_code) && typeof r.error_message === 'string'
        ? null
        : 'error result needs error_code and error_message';
    default:
      return `unknown result type ${JSON.stringify(r.type)}`;
  }
}

function truncationProblem(r: Record<string, unknown>): string | null {
  for (const k of ['rows_returned', 'rows_available', 'more_than'])
    if (r[k] !== undefined && !Number.isInteger(r[k])) return `${k} must be an integer`;
  for (const k of ['handle', 'next', 'hint'])
    if (r[k] !== undefined && typeof r[k] !== 'string') return `${k} must be a string`;
  return null;
}

/** The same envelope check for a bare result (the direct HTTP path builds no wrapper object). */
export function resultEnvelopeProblem(result: Result): string | null {
  return envelopeProblem({ result });
}

export const queryOutputSchema: StandardSchemaWithJSON<{ result: Result }> = {
  '~standard': {
    version: 1,
    vendor: 'tributary',
    validate(value) {
      const problem = envelopeProblem(value);
      return problem ? { issues: [{ message: problem }] } : { value: value as { result: Result } };
    },
    jsonSchema: {
      input: () => structuredClone(RESULT_JSON_SCHEMA) as unknown as Record<string, unknown>,
      output: () => structuredClone(RESULT_JSON_SCHEMA) as unknown as Record<string, unknown>,
    },
  },
};
