/* Conversions to canonical values (src/sql/types.ts) shared by the SQL sources. */

const MAX_SAFE = BigInt(Number.MAX_SAFE_INTEGER);
const MIN_SAFE = BigInt(Number.MIN_SAFE_INTEGER);

/** An integer as a number when it fits in 2^53, else a bigint. */
export function canonicalInt(v: bigint): number | bigint {
  return v <= MAX_SAFE && v >= MIN_SAFE ? Number(v) : v;
}

/** Integer text → number when safe, else bigint; text that is not an integer is returned as is. */
export function intFromText(s: string): number | bigint | string {
  if (s.length < 16) {
    const n = Number(s);
    if (Number.isSafeInteger(n)) return n;
  }
  return /^[+-]?\d+$/.test(s) ? canonicalInt(BigInt(s)) : s;
}

/**
 * The shortest decimal that reads back as the same 32-bit float, so a FLOAT 0.1 is 0.1
 * and not 0.10000000149011612 (what MySQL and PostgreSQL print).
 */
export function float32(v: number): number {
  if (!Number.isFinite(v) || Number.isInteger(v)) return v;
  const f = Math.fround(v);
  for (let p = 1; p <= 9; p++) {
    const c = Number(f.toPrecision(p));
    if (Math.fround(c) === f) return c;
  }
  return v;
}

const ZONE_RE = /(?:Z|[+-]\d\d(?::?\d\d(?::?\d\d)?)?)$/;

/**
 * 'YYYY-MM-DD HH:MM:SS[.ffffff]' from the common text forms: ISO with a 'T', a zone suffix
 * (converted to UTC), more than six fractional digits (truncated). Text that is not a
 * date-time is returned unchanged.
 */
export function normalizeDateTime(s: string): string {
  // The usual shape first, without a regex: PostgreSQL sessions run in UTC, so a timestamptz
  // is 'YYYY-MM-DD HH:MM:SS[.f{1,6}]+00' and only the zone goes.
  const n = s.length;
  if (
    (n === 22 || (n >= 24 && n <= 29 && s.charCodeAt(19) === 46)) &&
    s.charCodeAt(n - 3) === 43 &&
    s.charCodeAt(n - 2) === 48 &&
    s.charCodeAt(n - 1) === 48 &&
    s.charCodeAt(4) === 45 &&
    s.charCodeAt(10) === 32 &&
    s.charCodeAt(13) === 58
  ) {
    return s.slice(0, n - 3);
  }
  const m = /^(\d{4,}-\d\d-\d\d)[T ](\d\d:\d\d(?::\d\d)?)(\.\d+)?(.*)$/.exec(s);
  if (!m) return s;
  const [, date, time, frac = '', rest] = m;
  const zone = rest.trim();
  if (zone && ZONE_RE.test(zone) && zone !== 'Z' && !/^[+-]00(?::?00)?(?::?00)?$/.test(zone)) {
    const sign = zone[0] === '-' ? -1 : 1;
    const digits = zone.slice(1).replace(/:/g, '');
    const offsetSec =
      sign *
      (Number(digits.slice(0, 2)) * 3600 +
        Number(digits.slice(2, 4) || 0) * 60 +
        Number(digits.slice(4, 6) || 0));
    const t = Date.parse(`${date}T${time.length === 5 ? `${time}:00` : time}Z`);
    if (Number.isNaN(t)) return s;
    const d = new Date(t - offsetSec * 1000);
    const iso = d.toISOString();
    return `${iso.slice(0, 10)} ${iso.slice(11, 19)}${trimFraction(frac)}`;
  }
  if (zone && !ZONE_RE.test(zone)) return s;
  return `${date} ${time.length === 5 ? `${time}:00` : time}${trimFraction(frac)}`;
}

/** At most microseconds, as the canonical form allows. */
function trimFraction(frac: string): string {
  return frac.slice(0, 7);
}

/** A JSON string literal. */
export function jsonString(s: string): string {
  return JSON.stringify(s);
}
