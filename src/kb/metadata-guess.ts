/**
 * The type of a metadata column that no INSERT ... SELECT recorded, guessed from its values:
 * BIGINT when every value is an integer, DOUBLE when every value is a number, BOOLEAN when
 * every value is one, else VARCHAR (no value yet: VARCHAR). Kept as the kinds seen, so values
 * inserted later widen the guess without reading the store again.
 */
import type { MysqlType } from '../core/types.js';

type Kind = 'int' | 'num' | 'bool' | 'other';

export class MetadataKinds {
  private readonly seen = new Map<string, Set<Kind>>();

  observe(column: string, v: unknown): void {
    if (v === null || v === undefined) return;
    const kind: Kind =
      typeof v === 'bigint' || (typeof v === 'number' && Number.isInteger(v))
        ? 'int'
        : typeof v === 'number'
          ? 'num'
          : typeof v === 'boolean'
            ? 'bool'
            : 'other';
    this.observeKind(column, kind);
  }

  merge(other: MetadataKinds): void {
    for (const [c, kinds] of other.seen) for (const k of kinds) this.observeKind(c, k);
  }

  type(column: string): MysqlType {
    const set = this.seen.get(column);
    if (!set || set.size === 0) return 'VARCHAR';
    if (set.size === 1 && set.has('int')) return 'BIGINT';
    if ([...set].every((k) => k === 'int' || k === 'num')) return 'DOUBLE';
    if (set.size === 1 && set.has('bool')) return 'BOOLEAN';
    return 'VARCHAR';
  }

  private observeKind(column: string, k: Kind): void {
    const set = this.seen.get(column);
    if (set) set.add(k);
    else this.seen.set(column, new Set([k]));
  }
}
