import { z } from 'zod';
import { ErrorCode, SqlError } from '../core/errors.js';
import type { EngineSpec } from './engine-spec.js';

/*
 * Parameter helpers for engine schemas. docs/reference/sql.md#engines: "All parameter values may be given as
 * strings", so numbers and booleans also accept their text forms. Every schema built from
 * these is idempotent: its output is a valid input, because the catalog stores parsed
 * parameters and parses them again when a source is reopened.
 */

const TRUE = new Set(['1', 'true', 'on', 'yes', 'y']);
const FALSE = new Set(['0', 'false', 'off', 'no', 'n']);

function numberFromText(v: unknown): unknown {
  if (typeof v !== 'string') return v;
  const t = v.trim();
  return /^[+-]?\d+(\.\d+)?$/.test(t) ? Number(t) : v;
}

function booleanFromText(v: unknown): unknown {
  if (typeof v === 'number' && (v === 0 || v === 1)) return v === 1;
  if (typeof v !== 'string') return v;
  const t = v.trim().toLowerCase();
  if (TRUE.has(t)) return true;
  if (FALSE.has(t)) return false;
  return v;
}

/** A JSON object or array given as its text. */
export function jsonFromText(v: unknown): unknown {
  if (typeof v !== 'string') return v;
  const t = v.trim();
  if (!t.startsWith('{') && !t.startsWith('[')) return v;
  try {
    return JSON.parse(t);
  } catch {
    return v;
  }
}

/** An integer, or its text. */
export function intParam(min = Number.MIN_SAFE_INTEGER, max = Number.MAX_SAFE_INTEGER) {
  return z.preprocess(numberFromText, z.number().int().min(min).max(max));
}

/** A TCP port, or its text. */
export function portParam() {
  return intParam(1, 65535);
}

/** A boolean, or one of 1/true/on/yes/y and 0/false/off/no/n (any case). */
export function booleanParam() {
  return z.preprocess(booleanFromText, z.boolean());
}

/** `true`/`false` (or their text forms), or an object (or its JSON text) checked by `object`. */
export function booleanOrObjectParam<T extends z.ZodType>(object: T) {
  return z.preprocess(
    (v) => {
      const b = booleanFromText(v);
      return typeof b === 'boolean' ? b : jsonFromText(v);
    },
    z.union([z.boolean(), object]),
  );
}

/** How a SQL source compares text (sql/dialects/types.ts CompileOptions.collation). */
export const COLLATIONS = ['mysql', 'source'] as const;
export type Collation = (typeof COLLATIONS)[number];

/** The `collation` parameter every SQL engine takes: 'mysql' (default) or 'source'. */
export function collationParam() {
  return z.enum(COLLATIONS).default('mysql');
}

export const COLLATION_DOC =
  "text comparison, grouping and sorting: mysql (default; MySQL's case- and accent-insensitive collation, exact) or source (the source's own rules and indexes)";

export const READ_ONLY_DOC =
  "true: every statement runs in the source's own read-only mode and writes are refused with 1290 (default false)";

/** A non-empty string (numbers are taken as their text, e.g. a numeric password). */
export function textParam() {
  return z.preprocess((v) => (typeof v === 'number' ? String(v) : v), z.string().min(1));
}

/** A string that may be empty (passwords). */
export function secretParam() {
  return z.preprocess((v) => (typeof v === 'number' ? String(v) : v), z.string());
}

const EXPECTED: Record<string, string> = {
  number: 'a number',
  int: 'an integer',
  boolean: 'a boolean (true/false)',
  string: 'a string',
  object: 'an object',
  array: 'a list',
};

function describeIssue(issue: z.core.$ZodIssue, input: Record<string, unknown>, engine: string): string {
  const key = issue.path.map(String).join('.');
  const top = issue.path.length ? String(issue.path[0]) : '';
  const invalid = (text: string) =>
    key
      ? `Invalid parameter '${key}' for engine '${engine}': ${text}`
      : `Invalid parameters for engine '${engine}': ${text}`;
  switch (issue.code) {
    case 'invalid_type':
      if (top && input[top] === undefined)
        return `Missing required parameter '${top}' for engine '${engine}'`;
      return invalid(`expected ${EXPECTED[issue.expected] ?? issue.expected}`);
    case 'too_small':
      return invalid(issue.origin === 'string' ? 'must not be empty' : `at least ${issue.minimum}`);
    case 'too_big':
      return invalid(`at most ${issue.maximum}`);
    case 'invalid_value':
      return invalid(`expected one of ${issue.values.map((v) => `'${String(v)}'`).join(', ')}`);
    case 'invalid_union': {
      // A branch that got as far as a nested field says the most; else list what each branch wanted.
      const nested = issue.errors.flat().find((i) => i.path.length > 0);
      if (nested) return describeIssue({ ...nested, path: [...issue.path, ...nested.path] }, input, engine);
      const wanted = issue.errors.flatMap((b) =>
        b.filter((i) => i.code === 'invalid_type').map((i) => i.expected),
      );
      const names = [...new Set(wanted)].map((w) => EXPECTED[w] ?? w);
      return invalid(names.length ? `expected ${names.join(' or ')}` : issue.message);
    }
    default:
      // Custom refinements write their own messages; zod's built-in ones never echo the value.
      return invalid(issue.message);
  }
}

/**
 * Checks raw CREATE DATABASE parameters against an engine's schema. Unknown parameters are
 * refused by name; messages name the parameter and the engine, never a value (it may be secret).
 * `null` counts as absent, so a client can leave an optional parameter out either way.
 */
export function parseEngineParams<P>(spec: EngineSpec<P>, raw: unknown): P {
  if (raw === undefined || raw === null) raw = {};
  if (typeof raw !== 'object' || Array.isArray(raw)) {
    throw new SqlError(ErrorCode.SOURCE_ERROR, `PARAMETERS for engine '${spec.name}' must be a JSON object`);
  }
  const input: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(raw as Record<string, unknown>)) if (v !== null) input[k] = v;
  const known = Object.keys(spec.paramDocs);
  const unknown = Object.keys(input).filter((k) => !known.includes(k));
  if (unknown.length) {
    const names = unknown.map((k) => `'${k}'`).join(', ');
    throw new SqlError(
      ErrorCode.SOURCE_ERROR,
      `Unknown parameter${unknown.length > 1 ? 's' : ''} ${names} for engine '${spec.name}'. Known parameters: ${known.join(', ')}`,
    );
  }
  const r = spec.params.safeParse(input);
  if (r.success) return r.data;
  const msgs = [...new Set(r.error.issues.map((i) => describeIssue(i, input, spec.name)))];
  throw new SqlError(ErrorCode.SOURCE_ERROR, msgs.join('; '));
}
