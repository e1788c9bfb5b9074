import type { SqlStatement } from '../ast/nodes.js';

/** What the parser hands the engine: one of our service statements, or a SQL statement AST. */
export interface TableName {
  db: string | null;
  schema: string | null;
  table: string;
}

export type Statement =
  | {
      kind: 'create_database';
      name: string;
      engine: string;
      params: Record<string, unknown>;
      ifNotExists: boolean;
    }
  | { kind: 'drop_database'; name: string; ifExists: boolean }
  | { kind: 'show_databases'; like: string | null; where?: ShowCondition[] | null }
  | {
      kind: 'show_tables';
      from: string | null;
      full: boolean;
      like: string | null;
      /** `WHERE Table_type = 'BASE TABLE'` (DBeaver, SQLAlchemy): conditions ANDed. */
      where?: ShowCondition[] | null;
    }
  | {
      kind: 'show_columns';
      table: TableName;
      full: boolean;
      like: string | null;
      where?: ShowCondition[] | null;
    }
  | { kind: 'describe'; table: TableName }
  | { kind: 'use'; name: string }
  | { kind: 'show_engines' }
  | { kind: 'show_create_database'; name: string }
  | { kind: 'noop' }
  /** SET GLOBAL / PERSIST: answered like a SET, but a write in read-only mode. */
  | { kind: 'set_global' }
  | { kind: 'drop_table'; table: TableName; ifExists: boolean }
  | { kind: 'explain'; inner: Statement }
  /** The process list (execute/processlist.ts): answered with the caller's view of it. */
  | { kind: 'show_processlist'; full: boolean }
  /** What the caller may do under the access policy (sql/policy/grants.ts); `user` null: the caller. */
  | { kind: 'show_grants'; user: string | null }
  | { kind: 'kill'; id: number; query: boolean }
  | KbStatement
  | {
      kind: 'sql';
      ast: SqlStatement;
      text: string;
      /** Result column names of a SELECT as MySQL gives them (parse/labels.ts), when known. */
      labels?: string[] | null;
    };

/** Knowledge-base statements (parse/kb-statements.ts), answered by the knowledge-base service. */
export type KbStatement =
  | { kind: 'create_kb'; name: string; ifNotExists: boolean; params: Record<string, unknown> }
  | { kind: 'drop_kb'; name: string; ifExists: boolean }
  | { kind: 'alter_kb'; name: string; params: Record<string, unknown> }
  | { kind: 'describe_kb'; name: string }
  | { kind: 'show_kbs'; like: string | null }
  | { kind: 'evaluate_kb'; name: string; params: Record<string, unknown> };

/** One condition of a SHOW ... WHERE: a result column compared with a string. */
export interface ShowCondition {
  column: string;
  op: '=' | '<>' | 'LIKE' | 'NOT LIKE';
  value: string;
}
