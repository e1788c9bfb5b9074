/**
 * CLI benchmark: `tributary query` over 1,000,000 PostgreSQL rows, through a running server
 * (--url) and in process, as a capped table, --json and --csv to /dev/null; wall time and
 * the CLI process's peak RSS (GNU time). Baseline in the same run: psql printing the same
 * rows unaligned to /dev/null. Targets: table under a second; --json in constant memory
 * (peak RSS of the 1M-row --json run within 1.5x of a 100,000-row run).
 * Run alone: `node --import tsx bench/cli.ts`.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { createPgDatabase, pgExec } from '../test/helpers/services.js';
import { round, sql, startChildServer } from './lib.js';

const ROWS = Number(process.env.CLI_BENCH_ROWS ?? 1_000_000);

function run(args: string[], env: Record<string, string>): { s: number; rssMb: number } {
  const t0 = performance.now();
  const r = spawnSync('/usr/bin/time', ['-f', '%M', process.execPath, 'dist/cli/main.js', ...args], {
    env: { ...process.env, TRIBUTARY_LOG_LEVEL: 'warn', ...env },
    stdio: ['ignore', 'ignore', 'pipe'],
    maxBuffer: 1 << 20,
  });
  const s = (performance.now() - t0) / 1000;
  const err = String(r.stderr).trim().split('\n');
  if (r.status !== 0) throw new Error(`tributary ${args.join(' ')} failed: ${err.join('\n')}`);
  return { s: round(s), rssMb: round(Number(err.at(-1)) / 1024, 0) };
}

export async function benchCli(): Promise<Record<string, unknown>> {
  const db = await createPgDatabase('clibench');
  await pgExec(
    db.database,
    `CREATE TABLE events AS SELECT g AS id, 'event ' || g AS name, g * 1.5 AS amount, now() AS at
       FROM generate_series(1, ${ROWS}) g`,
  );
  const server = await startChildServer();
  try {
    const params = JSON.stringify({
      host: '127.0.0.1',
      port: 5432,
      user: 'postgres',
      password: '',
      database: db.database,
    });
    const r = await sql(server.url, `CREATE DATABASE pg WITH ENGINE = 'postgres', PARAMETERS = ${params}`);
    if (r.type !== 'ok') throw new Error(JSON.stringify(r));
    const q = 'SELECT * FROM pg.events';
    const remote = { TRIBUTARY_URL: server.url };
    const local = { TRIBUTARY_STORAGE_DIR: server.storageDir };
    const t0 = performance.now();
    execFileSync('psql', [
      '-h',
      '127.0.0.1',
      '-U',
      'postgres',
      '-A',
      '-o',
      '/dev/null',
      '-c',
      'SELECT * FROM events',
      db.database,
    ]);
    const psql = round((performance.now() - t0) / 1000);
    const out = {
      rows: ROWS,
      psql_unaligned_s: psql,
      url_table: run(['query', q], remote),
      url_json: run(['query', '--json', q], remote),
      url_json_100k: run(['query', '--json', `${q} LIMIT 100000`], remote),
      url_csv: run(['query', '--csv', q], remote),
      local_table: run(['query', q], local),
      local_json: run(['query', '--json', q], local),
    };
    return {
      ...out,
      json_rss_1m_over_100k: round(out.url_json.rssMb / out.url_json_100k.rssMb),
      url_csv_over_psql: round(out.url_csv.s / psql),
      targets: { table_s: '< 1', json_rss_ratio: '<= 1.5' },
    };
  } finally {
    await server.stop();
    await db.drop();
  }
}

if (import.meta.url === `file://${process.argv[1]}`) {
  console.log(JSON.stringify(await benchCli(), null, 2));
  process.exit(0);
}
