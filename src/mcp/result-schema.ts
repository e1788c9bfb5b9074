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
            'Rows. `truncated` is present (true) only when rows beyond api.mcp.max_rows were cut off.',
          properties: {
            type: { const: 'table' },
            column_names: { type: 'array', items: { type: 'string' } },
            data: { type: 'array', items: { type: 'array' } },
            truncated: { const: true },
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
      return null;
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
