import Table from 'cli-table3';
import type { Config } from '../config/types.js';
import { createLogger } from '../core/logger.js';
import type { AppDeps } from '../http/deps.js';
import { type Parsed, UsageError } from './commands.js';

export async function runQueryCli(config: Config, p: Parsed): Promise<number> {
  const sql = p.positionals.join(' ');
  if (!sql) throw new UsageError('Missing the SQL: tributary query "<SQL>"', 'query');
  const { closeDeps, createDeps } = await import('./start.js');
  const deps = await createDeps(config, createLogger(config.logLevel === 'info' ? 'warn' : config.logLevel));
  try {
    return await runQueryCommand(deps, sql, { db: p.values.db as string | undefined, json: !!p.values.json });
  } finally {
    await closeDeps(deps);
  }
}

/** `tributary query "<SQL>"`: one statement, a readable table on stdout; exit code 1 on error. */
export async function runQueryCommand(
  deps: AppDeps,
  sql: string,
  opts: { db?: string; json?: boolean },
): Promise<number> {
  const result = await deps.engine.execute(sql, { db: opts.db });
  if (opts.json) {
    process.stdout.write(`${JSON.stringify(result)}\n`);
    return result.type === 'error' ? 1 : 0;
  }
  if (result.type === 'error') {
    process.stderr.write(`ERROR ${result.error_code}: ${result.error_message}\n`);
    return 1;
  }
  if (result.type === 'ok') {
    process.stdout.write(
      `OK${result.affected_rows === null ? '' : `, ${result.affected_rows} row(s) affected`}\n`,
    );
    return 0;
  }
  const table = new Table({ head: result.column_names, style: { head: [], border: [], compact: true } });
  for (const row of result.data)
    table.push(row.map((v) => (v === null ? 'NULL' : typeof v === 'object' ? JSON.stringify(v) : String(v))));
  process.stdout.write(`${table.toString()}\n${result.data.length} row(s)\n`);
  return 0;
}
