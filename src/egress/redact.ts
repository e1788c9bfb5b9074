/**
 * Removes secrets from what an upstream sends back. An API that echoes the request (or puts
 * the key in a URL, a JSON string or a base64 blob) must not hand the token to the caller.
 * Only the secret itself is replaced, so `Bearer <token>` becomes `Bearer [REDACTED_API_KEY]`.
 */

export const REDACTED = '[REDACTED_API_KEY]';
const REDACTED_BYTES = Buffer.from(REDACTED);
/** Derived forms shorter than this are too likely to occur by chance to be worth replacing. */
const MIN_DERIVED = 4;

function jsonForms(s: string): string[] {
  const plain = JSON.stringify(s).slice(1, -1);
  const unicodeEscaped = (hexCase: 'lower' | 'upper') =>
    plain.replace(/[\u007f-\uffff]/g, (c) => {
      const hex = c.charCodeAt(0).toString(16).padStart(4, '0');
      return `\\u${hexCase === 'upper' ? hex.toUpperCase() : hex}`;
    });
  const forms: string[] = [];
  for (const v of [plain, unicodeEscaped('lower'), unicodeEscaped('upper')]) {
    // Some encoders (PHP, Go's HTML-safe mode) also escape '/', '<', '>' and '&'.
    const slash = v.replace(/\//g, '\\/');
    const html = slash.replace(/[<>&]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
    forms.push(v, slash, html);
  }
  return forms;
}

function urlForms(s: string): string[] {
  const upper = encodeURIComponent(s);
  const strict = upper.replace(/[!'()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`);
  const out: string[] = [];
  for (const f of [upper, strict]) {
    out.push(
      f,
      f.replace(/%[0-9A-F]{2}/g, (m) => m.toLowerCase()),
    );
    out.push(f.replace(/%20/g, '+'));
  }
  return out;
}

/**
 * Base64 of the secret at each of the three byte alignments it can have inside a longer
 * encoded string (e.g. `user:<token>` or `Bearer <token>`), keeping only the characters that
 * depend on the secret alone; standard and URL-safe alphabets.
 */
function base64Forms(s: string): string[] {
  const secret = Buffer.from(s, 'utf8');
  // The secret encoded on its own, padding included, goes whole.
  const whole = secret.toString('base64');
  const out: string[] = [whole, whole.replace(/=+$/, ''), secret.toString('base64url')];
  for (let shift = 0; shift < 3; shift++) {
    const padded = Buffer.concat([Buffer.alloc(shift), secret]);
    const b64 = padded.toString('base64');
    const start = Math.ceil((shift * 8) / 6);
    const end = Math.floor(((shift + secret.length) * 8) / 6);
    const core = b64.slice(start, end);
    if (core.length < MIN_DERIVED) continue;
    out.push(core, core.replace(/\+/g, '-').replace(/\//g, '_'));
  }
  return out;
}

export function secretForms(secret: string): string[] {
  if (!secret) return [];
  const forms = new Set<string>([secret]);
  for (const f of [...jsonForms(secret), ...urlForms(secret), ...base64Forms(secret)]) {
    if (f.length >= MIN_DERIVED) forms.add(f);
  }
  // Longest first so a longer form wins where two overlap at the same start.
  return [...forms].sort((a, b) => b.length - a.length);
}

/** A string searched for strings, or a Buffer for Buffers. */
type Haystack<N> = { indexOf(needle: N, from?: number): number; length: number };

function matches<N extends string | Buffer>(
  hay: Haystack<N>,
  needles: ReadonlyArray<N>,
): Array<[number, number]> {
  const spans: Array<[number, number]> = [];
  for (const n of needles) {
    const len = n.length;
    if (len === 0) continue;
    let i = hay.indexOf(n, 0);
    while (i !== -1) {
      spans.push([i, i + len]);
      i = hay.indexOf(n, i + len);
    }
  }
  if (spans.length <= 1) return spans;
  spans.sort((a, b) => a[0] - b[0] || b[1] - a[1]);
  const merged: Array<[number, number]> = [spans[0]!];
  for (let k = 1; k < spans.length; k++) {
    const last = merged[merged.length - 1]!;
    const cur = spans[k]!;
    if (cur[0] < last[1]) last[1] = Math.max(last[1], cur[1]);
    else merged.push(cur);
  }
  return merged;
}

const CACHE_MAX = 256;
const cache = new Map<string, Redactor>();

export class Redactor {
  /** A shared Redactor for these secrets: building the forms costs more than most redactions. */
  static for(secrets: readonly string[]): Redactor {
    const key = secrets.join('\u0000');
    let r = cache.get(key);
    if (!r) {
      if (cache.size >= CACHE_MAX) cache.clear();
      r = new Redactor(secrets);
      cache.set(key, r);
    }
    return r;
  }

  private readonly forms: string[];
  private readonly formBytes: Buffer[];

  /** `secrets`: the token and any other values to hide; empty strings are ignored. */
  constructor(secrets: readonly string[]) {
    const all = new Set<string>();
    for (const s of secrets) for (const f of secretForms(s)) all.add(f);
    this.forms = [...all].sort((a, b) => b.length - a.length);
    this.formBytes = this.forms.map((f) => Buffer.from(f, 'utf8'));
  }

  get empty(): boolean {
    return this.forms.length === 0;
  }

  redactString(s: string): string {
    if (this.forms.length === 0 || s.length === 0) return s;
    const spans = matches(s, this.forms);
    if (spans.length === 0) return s;
    let out = '';
    let at = 0;
    for (const [a, b] of spans) {
      out += s.slice(at, a) + REDACTED;
      at = b;
    }
    return out + s.slice(at);
  }

  /** Works on raw bytes, so binary bodies are covered without decoding them. Returns the input when nothing matched. */
  redactBuffer(buf: Buffer): Buffer {
    if (this.formBytes.length === 0 || buf.length === 0) return buf;
    const spans = matches(buf, this.formBytes);
    if (spans.length === 0) return buf;
    const parts: Buffer[] = [];
    let at = 0;
    for (const [a, b] of spans) {
      parts.push(buf.subarray(at, a), REDACTED_BYTES);
      at = b;
    }
    parts.push(buf.subarray(at));
    return Buffer.concat(parts);
  }

  redactHeaders(headers: Record<string, string | string[]>): Record<string, string | string[]> {
    const out: Record<string, string | string[]> = Object.create(null);
    for (const [k, v] of Object.entries(headers)) {
      out[this.redactString(k)] = Array.isArray(v)
        ? v.map((x) => this.redactString(x))
        : this.redactString(v);
    }
    return out;
  }
}
