/**
 * Reads a server's streamed `/api/sql/query` answer row by row: the table object's head is
 * `{"type":"table","column_names":[...],"data":[` and then rows, so a million rows never sit
 * in memory as one string. Other answers (ok, error) are small and parsed whole.
 */
export type JsonHead = { type: 'table'; columns: string[] } | { type: 'whole'; value: unknown };

const HEAD = '{"type":"table","column_names":';

export async function* splitRows(
  chunks: AsyncIterable<Uint8Array | string>,
  onHead: (h: JsonHead) => void,
): AsyncGenerator<unknown[][]> {
  const decoder = new TextDecoder();
  let buf = '';
  let inData = false;
  let whole = false;
  // Scanner state inside the data array.
  let depth = 0;
  let inString = false;
  let escaped = false;
  let rowStart = -1;
  let pos = 0;
  let ended = false;
  for await (const chunk of chunks) {
    buf += typeof chunk === 'string' ? chunk : decoder.decode(chunk, { stream: true });
    if (!inData && !whole) {
      if (buf.length < HEAD.length && HEAD.startsWith(buf)) continue;
      if (!buf.startsWith(HEAD)) {
        whole = true;
        continue;
      }
      const at = buf.indexOf(',"data":[');
      if (at < 0) continue;
      onHead({ type: 'table', columns: JSON.parse(buf.slice(HEAD.length, at)) });
      buf = buf.slice(at + ',"data":['.length);
      inData = true;
    }
    if (whole || ended) continue;
    const rows: unknown[][] = [];
    let consumed = 0;
    let i = pos;
    for (; i < buf.length; i++) {
      const c = buf.charCodeAt(i);
      if (inString) {
        if (escaped) escaped = false;
        else if (c === 92) escaped = true;
        else if (c === 34) inString = false;
        continue;
      }
      if (c === 34) inString = true;
      else if (c === 91 || c === 123) {
        if (depth === 0) rowStart = i;
        depth++;
      } else if (c === 93 || c === 125) {
        if (depth === 0) {
          ended = true; // the data array's own ']'
          break;
        }
        depth--;
        if (depth === 0) {
          rows.push(JSON.parse(buf.slice(rowStart, i + 1)));
          consumed = i + 1;
          rowStart = -1;
        }
      }
    }
    buf = buf.slice(consumed);
    pos = i - consumed;
    if (rowStart >= 0) rowStart -= consumed;
    if (rows.length) yield rows;
  }
  buf += decoder.decode();
  if (!inData) {
    let value: unknown;
    try {
      value = JSON.parse(buf);
    } catch {
      throw new Error(`The server's answer is not JSON: ${buf.slice(0, 200)}`);
    }
    onHead({ type: 'whole', value });
  }
}
