/**
 * The rows of one answer, cut at a row count and, for MCP, at a byte budget: the answer's
 * JSON (`{"type":"table","column_names":[...],"data":[...],"truncated":true}`) never passes
 * `maxBytes`. A row's size is the length of its own JSON text: JSON.stringify of an array
 * is its elements' texts joined by commas, so the sum is exact, whatever the key order of
 * the object that finally carries the rows.
 */
export class CutAnswer {
  readonly data: unknown[][] = [];
  truncated = false;
  private bytes = 0;

  constructor(
    columnNames: string[],
    private readonly maxRows: number,
    private readonly maxBytes: number | undefined,
  ) {
    if (maxBytes !== undefined)
      this.bytes = Buffer.byteLength(
        JSON.stringify({ type: 'table', column_names: columnNames, data: [], truncated: true }),
      );
  }

  /** Take rows until the cut; the index of the first row not taken (`rows.length` when all were). */
  take(rows: unknown[][]): number {
    const { data, maxRows, maxBytes } = this;
    for (let i = 0; i < rows.length; i++) {
      if (data.length >= maxRows) return this.cut(i);
      if (maxBytes !== undefined) {
        const b = Buffer.byteLength(JSON.stringify(rows[i])) + (data.length ? 1 : 0);
        if (this.bytes + b > maxBytes) return this.cut(i);
        this.bytes += b;
      }
      data.push(rows[i]);
    }
    return rows.length;
  }

  private cut(i: number): number {
    this.truncated = true;
    return i;
  }
}
