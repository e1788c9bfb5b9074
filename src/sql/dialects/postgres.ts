/** PostgreSQL: the default compiler is PostgreSQL-flavoured standard SQL; only parameters differ. */
import { type FunctionMap, SqlCompiler } from './compiler.js';
import { commonFunctions } from './functions/common.js';

export class PostgresCompiler extends SqlCompiler {
  readonly target = 'postgres' as const;
  protected readonly functions: FunctionMap = commonFunctions;

  protected override bytesLiteral(hex: string): string {
    return `'\\x${hex}'::bytea`;
  }

  protected override param(): string {
    return `$${++this.paramCount}`;
  }
}
