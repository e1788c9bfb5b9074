/**
 * kill -9 of one of two replicas mid-load behind the shipped deploy/nginx.conf (SPEC §13): only
 * the requests in flight on it fail, and as errors (every client call has a deadline; none may
 * reach it); the catalog holds nothing half-written (every registered file's bytes complete,
 * every source and knowledge base that exists usable, every write a client saw succeed there);
 * the replica comes back on the same catalog and serves. Clients mix HTTP statements, MCP calls
 * (the SDK over Streamable HTTP), file uploads and CREATE DATABASE / CREATE KNOWLEDGE_BASE.
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import pg from 'pg';
import { type ReplicaCluster, replicaCluster } from '../../helpers/replica-cluster.js';
import { pgParams } from '../../helpers/server.js';
import { PG } from '../../helpers/services.js';
import { connect } from '../mcp/helpers/clients.js';

/** No client call may take longer: a hang is a failure of its own kind. */
const DEADLINE_MS = 20_000;
let cluster: ReplicaCluster;

before(async () => {
  cluster = await replicaCluster('i30_replica_kill');
});

after(async () => {
  await cluster?.stop();
});

async function sql(url: string, query: string): Promise<{ status: number; body: any }> {
  const r = await fetch(`${url}/api/sql/query`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ query }),
    signal: AbortSignal.timeout(DEADLINE_MS),
  });
  const text = await r.text();
  return { status: r.status, body: r.status === 200 ? JSON.parse(text) : text.slice(0, 200) };
}

const csv = (n: number) =>
  `id,body,team\n${Array.from({ length: 20_000 }, (_, i) => `${i},note ${n}-${i} about deploys,t${i % 7}`).join('\n')}\n`;

test('kill -9 of one replica mid-load: only its in-flight requests fail, the catalog stays whole', {
  timeout: 180_000,
}, async (t) => {
  let a = await cluster.startReplica('a');
  const b = await cluster.startReplica('b');
  await cluster.startNginx();
  const url = cluster.url;

  let running = true;
  const counts = { http: 0, mcp: 0, uploads: 0, ddl: 0 };
  const failures: string[] = [];
  const uploaded = new Set<string>();
  const sources = new Set<string>();
  const kbs = new Set<string>();
  const fail = (what: string, e: unknown) => {
    const err = e as Error & { cause?: unknown };
    failures.push(
      `${what} ${err?.name === 'TimeoutError' ? 'DEADLINE' : String(err?.cause ?? err?.message ?? e)}`,
    );
  };

  const httpClient = async () => {
    while (running) {
      try {
        const r = await sql(url, 'SELECT 1 AS one');
        if (r.body?.type === 'table') counts.http++;
        else failures.push(`http ${r.status} ${JSON.stringify(r.body)}`);
      } catch (e) {
        fail('http', e);
      }
    }
  };
  const mcpClient = async () => {
    const c = await connect('streamable', url);
    try {
      while (running) {
        try {
          const r = await c.client.callTool(
            { name: 'query', arguments: { query: 'SELECT 2 AS two' } },
            undefined,
            { timeout: DEADLINE_MS },
          );
          const result = JSON.parse(r.content[0].text as string);
          if (result.type === 'table') counts.mcp++;
          else failures.push(`mcp ${JSON.stringify(result).slice(0, 200)}`);
        } catch (e) {
          fail('mcp', e);
        }
      }
    } finally {
      await c.terminate().catch(() => {});
    }
  };
  const uploader = async () => {
    for (let n = 0; running; n++) {
      const name = `up_${n}`;
      try {
        const r = await fetch(`${url}/api/files/${name}`, {
          method: 'PUT',
          body: csv(n),
          headers: { 'content-type': 'text/csv' },
          signal: AbortSignal.timeout(DEADLINE_MS),
        });
        const text = await r.text();
        if (r.status === 201) {
          uploaded.add(name);
          counts.uploads++;
        } else failures.push(`upload ${r.status} ${text.slice(0, 200)}`);
      } catch (e) {
        fail('upload', e);
      }
    }
  };
  const ddl = async () => {
    for (let n = 0; running; n++) {
      const [name, statement] =
        n % 2 === 0
          ? [
              `src_${n}`,
              `CREATE DATABASE src_${n} WITH ENGINE = 'postgres', PARAMETERS = ${pgParams(cluster.catalog)}`,
            ]
          : [
              `kb_${n}`,
              `CREATE KNOWLEDGE_BASE kb_${n} USING content_columns = ['body'], metadata_columns = ['team']`,
            ];
      try {
        const r = await sql(url, statement);
        if (r.body?.type === 'ok') {
          (n % 2 === 0 ? sources : kbs).add(name);
          counts.ddl++;
        } else failures.push(`ddl ${r.status} ${JSON.stringify(r.body)}`);
      } catch (e) {
        fail('ddl', e);
      }
      // A statement of this kind now and then: each source may hold connections to PostgreSQL.
      await new Promise((r) => setTimeout(r, 200));
    }
  };
  const clients = [
    ...Array.from({ length: 3 }, httpClient),
    ...Array.from({ length: 2 }, mcpClient),
    uploader(),
    ddl(),
  ];
  const inFlightAtMost = clients.length;

  await new Promise((r) => setTimeout(r, 2500));
  const before = { ...counts };
  a.child.kill('SIGKILL');
  assert.equal(await a.exited, null, 'killed, not exited');
  await new Promise((r) => setTimeout(r, 3000));
  running = false;
  await Promise.all(clients);
  t.diagnostic(`before the kill ${JSON.stringify(before)}, at the end ${JSON.stringify(counts)}`);
  const brief = (f: string) => f.replace(/<html>.*<\/html>(\\r\\n)*/s, 'nginx page').slice(0, 120);
  t.diagnostic(`${failures.length} failed: ${failures.slice(0, 8).map(brief).join(' | ')}`);

  // Only what was in flight on the killed replica failed, as an error: one call a client at most.
  assert.ok(failures.length <= inFlightAtMost, failures.join('\n'));
  assert.deepEqual(
    failures.filter((f) => /DEADLINE/.test(f)),
    [],
    'no call reached its deadline',
  );
  for (const f of failures)
    assert.match(f, /502|fetch failed|socket|ECONNRESET|terminated|-32\d{3}|Error/, f);
  assert.ok(counts.http > before.http && counts.mcp > before.mcp, 'the other replica kept serving');

  // Nothing half-written in the catalog.
  const db = new pg.Client({ ...PG, database: cluster.catalog });
  await db.connect();
  try {
    const files = await db.query(
      `SELECT f.name, f.size_bytes, b.complete, b.size_bytes AS blob_bytes,
              (SELECT coalesce(sum(octet_length(c.data)), 0) FROM tributary.tributary_file_chunks c WHERE c.sha256 = f.sha256) AS chunk_bytes
         FROM tributary.tributary_files f LEFT JOIN tributary.tributary_file_blobs b USING (sha256)`,
    );
    for (const f of files.rows) {
      assert.equal(f.complete, true, `file ${f.name} registered with incomplete bytes`);
      assert.equal(String(f.chunk_bytes), String(f.blob_bytes), `file ${f.name}: chunks do not add up`);
    }
    const registered = new Set(files.rows.map((f) => f.name as string));
    for (const name of uploaded)
      assert.ok(registered.has(name), `upload ${name} answered 201 but not registered`);
    const srcRows = (await db.query('SELECT name FROM tributary.tributary_sources')).rows.map((r) => r.name);
    for (const name of sources)
      assert.ok(srcRows.includes(name), `source ${name} answered ok but not in the catalog`);
    const kbRows = (await db.query('SELECT name FROM tributary.tributary_knowledge_bases')).rows.map(
      (r) => r.name,
    );
    for (const name of kbs) assert.ok(kbRows.includes(name), `KB ${name} answered ok but not in the catalog`);

    // The replica comes back on the same catalog, and everything the catalog holds works there.
    a = await cluster.startReplica('a');
    const one = await sql(a.url, 'SELECT 1 AS one');
    assert.equal(one.body.type, 'table');
    for (const name of registered) {
      const r = await sql(a.url, `SELECT COUNT(*) FROM files.${name}`);
      assert.deepEqual(r.body.data, [[20_000]], `file ${name} on the restarted replica`);
    }
    // Every source is known there; the newest two are read (each opens a pool on PostgreSQL).
    const shown = (await sql(a.url, 'SHOW DATABASES')).body.data.map((r: unknown[]) => r[0]);
    for (const name of srcRows)
      assert.ok(shown.includes(name), `source ${name} not on the restarted replica`);
    for (const name of srcRows.sort().slice(-2)) {
      const r = await sql(a.url, `SHOW TABLES FROM ${name}`);
      assert.equal(r.body.type, 'table', `source ${name}: ${JSON.stringify(r.body)}`);
    }
    for (const name of kbRows) {
      const r = await sql(a.url, `SELECT * FROM ${name} WHERE content = 'deploys' LIMIT 1`);
      assert.equal(r.body.type, 'table', `KB ${name}: ${JSON.stringify(r.body)}`);
    }
    const listed = async (u: string) =>
      ((await (await fetch(`${u}/api/files`)).json()) as { name: string }[]).map((f) => f.name).sort();
    assert.deepEqual(await listed(a.url), await listed(b.url));
    t.diagnostic(
      `catalog: ${registered.size} files, ${srcRows.length} sources, ${kbRows.length} KBs, all usable`,
    );
  } finally {
    await db.end();
  }
});
