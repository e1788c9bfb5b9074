import { z } from 'zod';
import { ErrorCode, SqlError } from '../sql/errors.js';
import type { EngineSpec } from './engine-spec.js';

/*
 * Parameter helpers for engine schemas. SPEC §3: "All parameter values may be given as
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

function describeIssue(issue: z.core.$ZodIssue, input: Record<string, unknown>): string {
  const key = issue.path.length ? String(issue.path[0]) : '';
  const nested = issue.path.length > 1 ? issue.path.slice(1).join('.') : '';
  switch (issue.code) {
    case 'invalid_type':
      if (key && input[key] === undefined) return `missing required parameter '${key}'`;
      return `invalid parameter '${key}${nested ? `.${nested}` : ''}': expected ${EXPECTED[issue.expected] ?? issue.expected}`;
    case 'too_small':
    case 'too_big':
      if (issue.origin === 'string' && issue.code === 'too_small')
        return `invalid parameter '${key}': must not be empty`;
      return `invalid parameter '${key}': ${issue.code === 'too_small' ? 'at least' : 'at most'} ${issue.code === 'too_small' ? issue.minimum : issue.maximum}`;
    case 'invalid_value':
      return `invalid parameter '${key}': expected one of ${issue.values.map((v) => `'${String(v)}'`).join(', ')}`;
    default:
      // Custom refinements write their own messages; zod's built-in ones never echo the value.
      return key
        ? `invalid parameter '${key}${nested ? `.${nested}` : ''}': ${issue.message}`
        : issue.message;
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
  const msgs = [...new Set(r.error.issues.map((i) => describeIssue(i, input)))];
  const text = msgs.join('; ');
  throw new SqlError(
    ErrorCode.SOURCE_ERROR,
    `${text[0].toUpperCase()}${text.slice(1)} for engine '${spec.name}'`,
  );
}
