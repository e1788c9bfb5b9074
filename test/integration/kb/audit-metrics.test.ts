/**
 * SPEC §10 for knowledge bases: the audit line's `sources` names the KB a statement used (as
 * `kb:<name>`) beside the data sources it read, and GET /metrics counts searches (by KB and
 * mode, with a latency histogram), rows ingested and embedding calls and errors by provider.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import type { Result } from '../../../src/sql/result.js';
import { startTestServer, type TestServer } from '../../helpers/server.js';
import { type FakeProvider, openAiServer } from './fake-providers.js';

let dir = '';
let logPath = '';
let srv: TestServer;
let openai: FakeProvider;

before(async () => {
  dir = mkdtempSync(join(tmpdir(), 'tributary-i29-egress-audit-'));
  logPath = join(dir, 'audit.jsonl');
  openai = await openAiServer({ key: 'sk-the-right-key-0000000000' });
  srv = await startTestServer({ TRIBUTARY_AUDIT_LOG: logPath });
  const csv =
    'id,body,team\n1,Deploys happen on Tuesdays.,ops\n2,Refunds take five days.,billing\n3,Backups run nightly.,ops\n';
  const up = await fetch(`${srv.url}/api/files/notes_csv`, {
    method: 'PUT',
    body: csv,
    headers: { 'content-type': 'text/csv' },
  });
  assert.equal(up.status, 201);
});

after(async () => {
  await srv?.stop();
  await openai?.close();
  rmSync(dir, { recursive: true, force: true });
});

const ok = (r: Result, q: string) => assert.notEqual(r.type, 'error', `${q}: ${JSON.stringify(r)}`);

async function auditLines(n: number): Promise<Record<string, unknown>[]> {
  for (let i = 0; i < 200; i++) {
    const lines = readFileSync(logPath, 'utf8').split('\n').filter(Boolean);
    if (lines.length >= n) return lines.map((l) => JSON.parse(l));
    await sleep(20);
  }
  assert.fail(`fewer than ${n} audit lines`);
}

test('the audit line names the KB as kb:<name> and the sources an INSERT ... SELECT read', async () => {
  const statements: [string, string[]][] = [
    [
      `CREATE KNOWLEDGE_BASE Notes USING content_columns = ['body'], metadata_columns = ['team']`,
      ['kb:notes'],
    ],
    [`INSERT INTO notes SELECT id, body, team FROM files.notes_csv`, ['files', 'kb:notes']],
    [`SELECT id, relevance FROM notes WHERE content = 'deploys' LIMIT 2`, ['kb:notes']],
    // The same shape again (plans are shared by shape): still named.
    [`SELECT id, relevance FROM notes WHERE content = 'refunds' LIMIT 1`, ['kb:notes']],
    [`SELECT COUNT(*) FROM (SELECT id FROM notes WHERE team = 'ops') AS t`, ['kb:notes']],
    [
      `INSERT INTO notes (id, body, team) VALUES (9, 'Release notes go out on Fridays.', 'ops')`,
      ['kb:notes'],
    ],
    [`DELETE FROM notes WHERE id = 9`, ['kb:notes']],
    [`DESCRIBE KNOWLEDGE_BASE notes`, ['kb:notes']],
    [`SHOW KNOWLEDGE_BASES`, []],
    [`SELECT id FROM files.notes_csv WHERE team = 'ops'`, ['files']],
  ];
  for (const [q] of statements) ok(await srv.sql(q), q);
  const lines = await auditLines(statements.length);
  assert.deepEqual(
    lines.map((l) => l.sources),
    statements.map(([, sources]) => sources),
  );
  // Literals stay masked in KB statements too.
  assert.ok(!JSON.stringify(lines).includes('deploys'));
});

test('GET /metrics counts KB searches by KB and mode, their latency, rows ingested, embedding calls and errors', async () => {
  ok(
    await srv.sql(`SELECT id FROM notes WHERE content = 'backups' AND hybrid_search = true LIMIT 1`),
    'hybrid',
  );
  const bad = await srv.sql(
    `CREATE KNOWLEDGE_BASE remote USING embedding_model = {"provider": "openai", "model_name": "m", "base_url": "${openai.url}", "api_key": "sk-a-wrong-key-000000000000"}`,
  );
  assert.equal(bad.type, 'error');
  const text = await (await fetch(`${srv.url}/metrics`)).text();
  const value = (series: string) => {
    const line = text.split('\n').find((l) => l.startsWith(`${series} `));
    assert.ok(line, `${series} is on /metrics`);
    return Number(line.split(' ')[1]);
  };
  assert.equal(value('tributary_kb_searches_total{kb="notes",mode="vector"}'), 2);
  assert.equal(value('tributary_kb_searches_total{kb="notes",mode="filter"}'), 1);
  assert.equal(value('tributary_kb_searches_total{kb="notes",mode="hybrid"}'), 1);
  assert.equal(value('tributary_kb_search_duration_seconds_count{kb="notes",mode="vector"}'), 2);
  assert.ok(value('tributary_kb_search_duration_seconds_sum{kb="notes",mode="vector"}') > 0);
  assert.equal(value('tributary_kb_search_duration_seconds_bucket{le="+Inf",kb="notes",mode="vector"}'), 2);
  assert.equal(value('tributary_kb_rows_ingested_total{kb="notes",result="inserted"}'), 4);
  // CREATE's probe, one stored batch of the INSERT ... SELECT, one of the VALUES, three questions.
  assert.equal(value('tributary_kb_embedding_calls_total{provider="builtin"}'), 6);
  assert.equal(value('tributary_kb_embedded_texts_total{provider="builtin"}'), 1 + 3 + 1 + 3);
  assert.equal(value('tributary_kb_embedding_calls_total{provider="openai"}'), 1);
  assert.equal(value('tributary_kb_embedding_errors_total{provider="openai"}'), 1);
});
