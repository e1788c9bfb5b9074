/**
 * MySQL JSON paths (`$.a."b c"[0]`) as a list of steps: object keys (strings) and array
 * indexes (numbers). Wildcards, `**` and `last` have no fixed-step equivalent and are refused.
 */
export type JsonStep = string | number;

export function parseJsonPath(path: string): JsonStep[] {
  let i = 0;
  const s = path.trim();
  if (s[i] !== '$') throw new Error(`JSON path '${path}' must start with $`);
  i++;
  const steps: JsonStep[] = [];
  while (i < s.length) {
    const ch = s[i];
    if (ch === ' ') {
      i++;
      continue;
    }
    if (ch === '.') {
      i++;
      if (s[i] === '"') {
        let key = '';
        i++;
        while (i < s.length && s[i] !== '"') {
          if (s[i] === '\\' && i + 1 < s.length) i++;
          key += s[i++];
        }
        if (s[i] !== '"') throw new Error(`JSON path '${path}' has an unterminated key`);
        i++;
        steps.push(key);
        continue;
      }
      const m = /^[A-Za-z_$][A-Za-z0-9_$]*/.exec(s.slice(i));
      if (!m) throw new Error(`JSON path '${path}' uses a wildcard or an invalid key`);
      steps.push(m[0]);
      i += m[0].length;
      continue;
    }
    if (ch === '[') {
      const m = /^\[\s*(\d+)\s*\]/.exec(s.slice(i));
      if (!m) throw new Error(`JSON path '${path}' uses a wildcard, 'last' or a range`);
      steps.push(Number(m[1]));
      i += m[0].length;
      continue;
    }
    throw new Error(`JSON path '${path}' is not a simple path`);
  }
  return steps;
}
