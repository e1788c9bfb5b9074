/**
 * Split a document into chunks of at most `size` characters, each starting `overlap`
 * characters before the previous one ended. A cut prefers, within the chunk's last half, a
 * paragraph break, then a line break, then a space; only a single word longer than that
 * is cut mid-word. Deterministic, so the same text always gives the same chunks (and ids).
 */
export function chunkText(text: string, size: number, overlap: number): string[] {
  const t = text.trim();
  if (t.length === 0) return [];
  if (t.length <= size) return [t];
  const out: string[] = [];
  let start = 0;
  while (start < t.length) {
    let end = Math.min(start + size, t.length);
    if (end < t.length) end = breakBefore(t, start, end);
    const piece = t.slice(start, end).trim();
    if (piece) out.push(piece);
    if (end >= t.length) break;
    let next = Math.max(end - overlap, start + 1);
    // Start the overlap on a word boundary so no chunk begins with half a word.
    if (next > start + 1 && next < end) {
      const sp = t.indexOf(' ', next);
      if (sp >= 0 && sp < end) next = sp + 1;
    }
    start = next;
  }
  return out;
}

function breakBefore(t: string, start: number, end: number): number {
  const min = start + Math.floor((end - start) / 2);
  for (const sep of ['\n\n', '\n', ' ']) {
    const at = t.lastIndexOf(sep, end - sep.length);
    if (at >= min) return at + sep.length;
  }
  return end;
}
