/**
 * The deepest an MCP message may nest. JSON-RPC messages are shallow (a `query` call is
 * four levels); parsers and schema checks downstream recurse, and a 500,000-deep array
 * overflowed the stack (a 500 where a malformed message is a 400).
 */
export const MAX_JSON_DEPTH = 64;

/** Whether JSON text nests `[` and `{` deeper than `max` (strings skipped). One pass, no recursion. */
export function jsonTooDeep(text: string, max = MAX_JSON_DEPTH): boolean {
  let depth = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === 34) {
      // A string: skip to its closing quote, over escapes.
      for (i++; i < text.length; i++) {
        const d = text.charCodeAt(i);
        if (d === 92) i++;
        else if (d === 34) break;
      }
    } else if (c === 91 || c === 123) {
      if (++depth > max) return true;
    } else if (c === 93 || c === 125) depth--;
  }
  return false;
}
