/** The parse worker's task (parse-pool.ts): one statement's text parsed off the event loop. */
import { answer, type WorkerAnswer } from './parse-text.js';
import type { LiteralKind } from './slots.js';

export default function parseTask(task: {
  text: string;
  sources: readonly string[];
  kinds: readonly LiteralKind[] | null;
}): WorkerAnswer {
  return answer(task.text, task.sources, task.kinds);
}
