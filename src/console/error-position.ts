/**
 * Where in a statement its error is, from the server's message: "at position N" (the SQL
 * parser's offset), "at line L column C", or the text after "near '...'". Null when the
 * message says nothing usable.
 */
export function errorSpan(statement: string, message: string): { from: number; to: number } | null {
  const clamp = (n: number) => Math.max(0, Math.min(statement.length, n));
  const wordEnd = (from: number) => {
    const m = /^[^\s,;()]+/.exec(statement.slice(from));
    return clamp(from + Math.max(1, m ? m[0].length : 1));
  };
  const pos = /at position (\d+)/i.exec(message);
  if (pos) {
    const from = clamp(Number(pos[1]));
    return { from, to: wordEnd(from) };
  }
  const lc = /line (\d+),? column (\d+)/i.exec(message);
  if (lc) {
    const lines = statement.split('\n');
    const line = Math.min(lines.length, Math.max(1, Number(lc[1])));
    const before = lines.slice(0, line - 1).reduce((n, l) => n + l.length + 1, 0);
    const from = clamp(before + Number(lc[2]) - 1);
    return { from, to: wordEnd(from) };
  }
  const near = /near '([\s\S]*?)'(?: at line \d+| at position| at end|$)/i.exec(message);
  if (near?.[1]) {
    const text = near[1];
    const at = statement.indexOf(text);
    if (at >= 0) return { from: at, to: wordEnd(at) };
  }
  return null;
}
