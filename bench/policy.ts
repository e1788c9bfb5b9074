/**
 * What the access policy costs a point lookup (issue 31), in process: one engine with a
 * 50-rule policy file over a PostgreSQL table, the same statements run by a principal the
 * policy binds (its rules are the last to match, so every decision walks the whole list) and
 * by the admin (whom no rule binds), in alternating rounds; CPU of this process per lookup,
 * median of the rounds. The target (server CPU per MCP point lookup with a 50-rule
 * policy versus none, at most +5%) is measured through MCP once the faces carry principals;
 * this is the engine's share of it.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createDeps } from '../src/cli/start.js';
import { loadConfig } from '../src/config/load.js';
import { createLogger } from '../src/core/logger.js';
import type { StatementPrincipal } from '../src/sql/engine-types.js';
import { pgParams } from '../test/helpers/server.js';
import { createPgDatabase, pgExec } from '../test/helpers/services.js';
import { round } from './lib.js';

const ROUNDS = 9;
const PER_ROUND = 2000;

export async function benchPolicy(): Promise<Record<string, unknown>> {
  const db = await createPgDatabase('bench_policy');
  const dir = mkdtempSync(join(tmpdir(), 'tributary-bench-policy-'));
  try {
    await pgExec(
      db.database,
      `CREATE TABLE t (id int PRIMARY KEY, name text NOT NULL, qty int NOT NULL, secret text);
       INSERT INTO t SELECT g, 'item-' || g, g % 97, 's' || g FROM generate_series(1, 100000) g; ANALYZE t;`,
    );
    // 48 rules for other users, then the two that decide for the bench's principal.
    const others = Array.from({ length: 48 }, (_, i) => ({
      user: `user-${i}`,
      source: `src${i}|pg`,
      table: `t${i}.*`,
      privileges: ['SELECT'],
    }));
    const policy = {
      sources: [
        ...others.map((r) => ({ user: r.user, source: r.source, allow: 'read' })),
        { group: 'agents', source: 'pg', allow: 'read' },
      ],
      tables: [
        ...others,
        {
          group: 'agents',
          source: 'pg',
          table: 't',
          privileges: ['SELECT'],
          columns: [{ name: 'secret', allow: false }],
        },
      ],
    };
    const path = join(dir, 'policy.json');
    writeFileSync(path, JSON.stringify(policy));
    const config = await loadConfig({
      argv: {},
      env: { TRIBUTARY_STORAGE_DIR: dir, TRIBUTARY_POLICY_FILE: path, TRIBUTARY_METRICS_ENABLED: 'false' },
    });
    const deps = await createDeps(config, createLogger('silent'));
    const engine = deps.engine;
    try {
      const made = await engine.execute(
        `CREATE DATABASE pg WITH ENGINE = 'postgres', PARAMETERS = ${pgParams(db.database)}`,
      );
      if (made.type !== 'ok') throw new Error(JSON.stringify(made));
      const agent: StatementPrincipal = { user: 'agent-1', groups: ['agents'], admin: false };
      const admin: StatementPrincipal = { user: 'root', groups: [], admin: true };
      const round1 = async (p: StatementPrincipal): Promise<number> => {
        const before = process.cpuUsage();
        for (let i = 0; i < PER_ROUND; i++) {
          const r = await engine.execute(`SELECT id, name, qty FROM pg.t WHERE id = ${(i % 1000) + 1}`, {
            principal: p,
          });
          if (r.type !== 'table') throw new Error(JSON.stringify(r));
        }
        const used = process.cpuUsage(before);
        return (used.user + used.system) / PER_ROUND;
      };
      await round1(agent);
      await round1(admin);
      const bound: number[] = [];
      const free: number[] = [];
      for (let r = 0; r < ROUNDS; r++) {
        bound.push(await round1(agent));
        free.push(await round1(admin));
      }
      const med = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
      const withPolicy = med(bound);
      const without = med(free);
      return {
        cpu_us_per_lookup_policy_bound: round(withPolicy, 1),
        cpu_us_per_lookup_admin: round(without, 1),
        overhead_pct: round(((withPolicy - without) / without) * 100, 1),
        rules: policy.sources.length + policy.tables.length,
        target: 'engine share of the issue 31 target: at most +5% CPU per point lookup',
      };
    } finally {
      await engine.close();
      await deps.catalog.close();
    }
  } finally {
    await db.drop();
    rmSync(dir, { recursive: true, force: true });
  }
}
