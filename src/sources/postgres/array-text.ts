/**
 * PostgreSQL array text ('{1,NULL,"a b",{2,3}}', optionally '[0:1]={...}') → JSON text.
 * `element` turns one element (its text, or null for NULL) into a JSON fragment.
 */
export function parsePgArray(text: string, element: (v: string | null) => string): string {
  let i = 0;
  if (text[0] === '[') {
    const eq = text.indexOf('=');
    if (eq < 0) return JSON.stringify(text);
    i = eq + 1;
  }
  const out: string[] = [];

  function parseArray(): void {
    // text[i] === '{'
    i++;
    out.push('[');
    let first = true;
    while (i < text.length) {
      const c = text[i];
      if (c === '}') {
        i++;
        out.push(']');
        return;
      }
      if (c === ',') {
        i++;
        continue;
      }
      if (!first) out.push(',');
      first = false;
      if (c === '{') parseArray();
      else if (c === '"') out.push(element(readQuoted()));
      else {
        const raw = readUnquoted();
        out.push(element(raw.toUpperCase() === 'NULL' ? null : raw));
      }
    }
    throw new Error('unterminated array');
  }

  function readQuoted(): string {
    i++;
    let s = '';
    while (i < text.length) {
      const c = text[i++];
      if (c === '\\') s += text[i++];
      else if (c === '"') return s;
      else s += c;
    }
    throw new Error('unterminated quoted element');
  }

  function readUnquoted(): string {
    let s = '';
    while (i < text.length && text[i] !== ',' && text[i] !== '}') {
      const c = text[i++];
      s += c === '\\' ? text[i++] : c;
    }
    return s.trim();
  }

  try {
    if (text[i] !== '{') return JSON.stringify(text);
    parseArray();
    return out.join('');
  } catch {
    // Not array text after all (a type we misjudged): keep the value, as a JSON string.
    return JSON.stringify(text);
  }
}
