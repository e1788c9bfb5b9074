/**
 * A knowledge-base search in a join (issue 29): 100,000 chunks in the embedded store, joined
 * with a PostgreSQL table, through /api/sql/query on the built server. p50 of
 *   - the search alone: `SELECT ... FROM kb WHERE content = ... LIMIT 10` (k = 10);
 *   - `kb JOIN pg.customers ... LIMIT 10` (growing batches from 10; every hit joins);
 *   - the same with a filter on the customers (`tier = 'enterprise'`, a third of them), so
 *     the batches must grow until 10 joined rows are found.
 * Target: the join at most 2x the search alone. KB_JOIN_ROWS overrides the 100,000.
 */
import { createPgDatabase, pgExec } from '../test/helpers/services.js';
import { WORDS } from './kb-corpus.js';
import { round, sql, startChildServer, time } from './lib.js';

export async function benchKbJoin(): Promise<Record<string, unknown>> {
  const n = Number(process.env.KB_JOIN_ROWS ?? 100_000);
  const db = await createPgDatabase('bench_kbjoin');
  const server = await startChildServer({ TRIBUTARY_QUERY_TIMEOUT_MS: '3600000' });
  try {
    const words = `ARRAY[${WORDS.map((w) => `'${w}'`).join(',')}]`;
    await pgExec(
      db.database,
      `CREATE TABLE docs AS SELECT g AS id,
         'Ticket ACME-' || g || ': ' || array_to_string(ARRAY(
           SELECT (${words})[1 + ((g * 7919 + k * 104729 + (g * k) % 997) % ${WORDS.length})]
           FROM generate_series(1, 40) k), ' ') AS body,
         (g % 1000) + 1 AS customer_id
       FROM generate_series(1, ${n}) g;
       CREATE TABLE customers AS SELECT g AS id, 'customer-' || g AS name,
         CASE WHEN g % 3 = 0 THEN 'enterprise' ELSE 'free' END AS tier FROM generate_series(1, 1000) g;
       ALTER TABLE customers ADD PRIMARY KEY (id);`,
    );
    await sql(
      server.url,
      `CREATE DATABASE pg WITH ENGINE = 'postgres', PARAMETERS = {"host": "127.0.0.1", "port": 5432, "user": "postgres", "database": "${db.database}"}`,
    );
    await sql(
      server.url,
      `CREATE KNOWLEDGE_BASE jkb USING content_columns = ['body'], metadata_columns = ['customer_id']`,
    );
    const ingest = await time(() =>
      sql(server.url, 'INSERT INTO jkb SELECT id, body, customer_id FROM pg.docs'),
    );
    const questions = Array.from(
      { length: 15 },
      (_, i) => `${WORDS[i]} ${WORDS[(i * 7 + 3) % WORDS.length]} delay`,
    );
    const statements: Record<string, (q: string) => string> = {
      alone: (q) => `SELECT id, relevance FROM jkb WHERE content = '${q}' LIMIT 10`,
      join: (q) =>
        `SELECT c.name, kb.id, kb.relevance FROM jkb kb JOIN pg.customers c ON c.id = kb.customer_id WHERE kb.content = '${q}' LIMIT 10`,
      join_filtered: (q) =>
        `SELECT c.name, kb.id, kb.relevance FROM jkb kb JOIN pg.customers c ON c.id = kb.customer_id WHERE kb.content = '${q}' AND c.tier = 'enterprise' LIMIT 10`,
    };
    const p50: Record<string, number> = {};
    for (const [name, stmt] of Object.entries(statements)) {
      // Warm-up: the first search of a process pays for loading the store.
      await sql(server.url, stmt(questions[0]));
      const ms: number[] = [];
      for (const q of questions) {
        const { ms: t, value } = await time(() => sql(server.url, stmt(q)));
        if ((value as { type?: string }).type !== 'table')
          throw new Error(`${name}: ${JSON.stringify(value)}`);
        if ((value as { data: unknown[] }).data.length !== 10) throw new Error(`${name}: not 10 rows`);
        ms.push(t);
      }
      ms.sort((a, b) => a - b);
      p50[name] = round(ms[Math.floor((ms.length - 1) / 2)]);
    }
    return {
      chunks: n,
      ingest_s: round(ingest.ms / 1000),
      search_alone_p50_ms: p50.alone,
      join_limit10_p50_ms: p50.join,
      join_filtered_limit10_p50_ms: p50.join_filtered,
      join_over_alone: round(p50.join / p50.alone),
      join_filtered_over_alone: round(p50.join_filtered / p50.alone),
      targets: { join_over_alone: '<= 2' },
    };
  } finally {
    await server.stop();
    await db.drop();
  }
}
