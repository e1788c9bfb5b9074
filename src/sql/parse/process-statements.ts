import { isKeyword, type Token } from './lexer.js';
import type { Statement } from './statement.js';

/**
 * `SHOW [FULL] PROCESSLIST` and `KILL [QUERY | CONNECTION] id` (execute/processlist.ts);
 * null for anything else.
 */
export function parseProcessStatement(t: Token[]): Statement | null {
  if (isKeyword(t[0], 'SHOW')) {
    const full = isKeyword(t[1], 'FULL');
    const at = full ? 2 : 1;
    if (isKeyword(t[at], 'PROCESSLIST') && t.length === at + 1) return { kind: 'show_processlist', full };
    return null;
  }
  if (isKeyword(t[0], 'KILL')) {
    const query = isKeyword(t[1], 'QUERY');
    const at = query || isKeyword(t[1], 'CONNECTION') ? 2 : 1;
    const id = t[at];
    if (id?.kind === 'number' && /^\d+$/.test(id.value) && t.length === at + 1)
      return { kind: 'kill', id: Number(id.value), query };
  }
  return null;
}
