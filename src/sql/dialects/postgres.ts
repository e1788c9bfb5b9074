/** PostgreSQL: the default compiler is PostgreSQL-flavoured standard SQL; only parameters differ. */
import { containsAggregate } from '../ast/aggregates.js';
import type { Expr, SelectStmt } from '../ast/nodes.js';
import { type FunctionMap, SqlCompiler } from './compiler.js';
import { commonFunctions } from './functions/common.js';
import { pgCastDate } from './functions/pg-safe-date.js';

export class PostgresCompiler extends SqlCompiler {
  readonly target = 'postgres' as const;
  protected readonly functions: FunctionMap = commonFunctions;

  protected override bytesLiteral(hex: string): string {
    return `'\\x${hex}'::bytea`;
  }

  /** MySQL's CAST('2024-02-30' AS DATE) is NULL (with a warning), not an error (pg-safe-date.ts). */
  protected override castTemporal(e: Expr, sql: string, type: string): string {
    if (this.kind(e) !== 'string') return `CAST(${sql} AS ${type})`;
    return pgCastDate(sql, type !== 'DATE', (v) => this.lit(v));
  }

  protected override param(): string {
    return `$${++this.paramCount}`;
  }

  /**
   * MySQL's locking reads lock rows in PostgreSQL too (inside a wire transaction they run on
   * its held connection). PostgreSQL refuses them with grouping or DISTINCT, where MySQL
   * locks the rows read: there the clause is left out.
   */
  protected override lockingClause(text: string, s: SelectStmt): string {
    if (s.groupby || s.distinct || s.having || containsAggregate(s.columns)) return '';
    if (/^for update$/i.test(text.trim())) return 'FOR UPDATE';
    return /^lock in share mode$|^for share$/i.test(text.trim()) ? 'FOR SHARE' : '';
  }
}
