import { ErrorCode, SqlError } from '../../core/errors.js';
import type { ColumnInfo } from '../../core/types.js';
import type { PushdownCapabilities, QueryStream, Source, TableInfo } from '../types.js';
import type { RestApiParams } from './params.js';

const NONE: PushdownCapabilities = {
  fullStatements: false,
  projection: false,
  filters: 'none',
  limit: false,
};

/**
 * A REST API reached through the passthrough endpoint. It has no tables and takes no SQL;
 * creating it only validates parameters (docs/reference/http.md#rest-passthrough: the upstream is called by the test endpoint).
 */
export class RestApiSource implements Source {
  readonly engine = 'rest_api';
  readonly dialect = null;
  readonly capabilities = NONE;
  readonly defaultSchema = '';

  constructor(
    readonly name: string,
    readonly params: RestApiParams,
  ) {}

  private notSupported(): SqlError {
    return new SqlError(
      ErrorCode.NOT_SUPPORTED,
      `Source '${this.name}' is a rest_api source: SQL is not supported; call POST /api/integrations/${this.name}/passthrough`,
    );
  }

  async listTables(): Promise<TableInfo[]> {
    return [];
  }

  async listColumns(_table: string, _schema?: string): Promise<ColumnInfo[]> {
    throw this.notSupported();
  }

  async query(_sql: string): Promise<QueryStream> {
    throw this.notSupported();
  }

  async execute(_sql: string): Promise<{ affectedRows: number | null }> {
    throw this.notSupported();
  }

  /** Parameters were validated when parsed; the upstream is not called here. */
  async test(): Promise<void> {}

  async close(): Promise<void> {}
}
