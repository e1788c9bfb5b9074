/**
 * Secret values in SQL text, for what the page keeps in the browser's storage (history,
 * editor tabs): a statement like `CREATE DATABASE pg WITH ENGINE = 'postgres', PARAMETERS =
 * {"password": "s3cret"}` is kept as `{"password": "***"}`. One rule, used everywhere the page
 * stores SQL.
 */
const KEY =
  '(?:[a-z0-9_]*(?:password|passwd|secret|api_?key|token|private_?key|credentials?|access_?key)[a-z0-9_]*)';
const QUOTED = String.raw`(?:'(?:[^'\\]|\\.|'')*'|"(?:[^"\\]|\\.)*")`;
/** `"password": "x"`, `'api_key' = 'x'`, `token: "x"`, `password = 'x'` (quoted or bare key). */
const KEY_VALUE = new RegExp(
  String.raw`(["'\x60]?${KEY}["'\x60]?\s*(?::|=)\s*)(${QUOTED}|[^\s,}\]);]+)`,
  'gi',
);
/** `IDENTIFIED BY 'x'`. */
const IDENTIFIED = new RegExp(String.raw`(identified\s+by\s+)(${QUOTED})`, 'gi');
/** `scheme://user:password@host`. */
const URL_PASSWORD = /(\b[a-z][a-z0-9+.-]*:\/\/[^\s:/@'"]+:)([^\s@'"]+)(@)/gi;

export const MASK = '***';

function maskValue(v: string): string {
  const q = v[0];
  return q === '"' || q === "'" ? `${q}${MASK}${q}` : MASK;
}

/** The text with every secret value replaced by `***` (quotes kept, so it still reads as SQL). */
export function maskSecrets(sql: string): string {
  return sql
    .replace(KEY_VALUE, (_m, head: string, value: string) => `${head}${maskValue(value)}`)
    .replace(IDENTIFIED, (_m, head: string, value: string) => `${head}${maskValue(value)}`)
    .replace(URL_PASSWORD, (_m, head: string, _pw: string, at: string) => `${head}${MASK}${at}`);
}
