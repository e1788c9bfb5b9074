/**
 * Statements longer than this let other clients' work run between the stages of their own
 * handling (shape, parse, bind, plan and compile, each linear in the text): 32 KiB is a few
 * milliseconds a stage, and a 1 MB statement's longest stage stays within about 35 ms.
 */
const BREATHE_ABOVE_CHARS = 32 * 1024;

/**
 * After a stage of a big statement (`size`: its text, or the text's length): let the event
 * loop read and answer other clients before the next stage. Two turns of setImmediate: one
 * scheduled from an I/O callback runs before the loop polls again; the second runs after it.
 */
export function breathe(size: string | number): Promise<void> | undefined {
  const n = typeof size === 'number' ? size : size.length;
  if (n <= BREATHE_ABOVE_CHARS) return undefined;
  return new Promise((r) => setImmediate(() => setImmediate(r)));
}
