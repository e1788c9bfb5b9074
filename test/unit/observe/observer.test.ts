/**
 * The observer queues reports and works through them in batches: a read of the metrics sees
 * every statement reported before it, the audit log gets every line (with the time its
 * statement ended) by close, and more than a batch's worth of reports is worked through
 * without waiting for the timer.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { setImmediate as turn } from 'node:timers/promises';
import { Observer } from '../../../src/observe/index.js';
import type { StatementReport } from '../../../src/observe/statement.js';

const report = (i: number, transport = 'mcp'): StatementReport => ({
  sql: `SELECT name FROM pg.t WHERE id = ${i}`,
  principal: 'ann',
  transport,
  rows: 1,
  truncated: false,
  durationMs: 2,
});

test('metrics read right after a statement count it; close writes every audit line', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'tributary-observer-unit-'));
  const path = join(dir, 'audit.jsonl');
  try {
    const o = new Observer({
      metrics: true,
      auditLog: path,
      sourceNames: async () => ['pg'],
      pools: async () => [],
    });
    const before = Date.now();
    o.statement(report(1));
    o.statement({ ...report(2, 'http'), errorCode: 1054, rows: 0 });
    o.metrics?.resultBytes('mcp', 120);
    o.metrics?.resultBytes('mcp', 30);
    o.metrics?.request('POST', '/api/sql/query', 200);
    const text = await o.metrics!.text();
    assert.match(text, /tributary_statements_total\{kind="SELECT",outcome="ok",transport="mcp"\} 1\n/);
    assert.match(text, /tributary_statements_total\{kind="SELECT",outcome="error",transport="http"\} 1\n/);
    assert.match(text, /tributary_statement_duration_seconds_count\{kind="SELECT",transport="mcp"\} 1\n/);
    assert.match(text, /tributary_rows_total\{transport="mcp"\} 1\n/);
    assert.match(text, /tributary_result_bytes_total\{transport="mcp"\} 150\n/);
    assert.match(
      text,
      /tributary_http_requests_total\{method="POST",route="\/api\/sql\/query",status="200"\} 1\n/,
    );
    // Handed over once: a second read counts nothing twice.
    assert.match(await o.metrics!.text(), /tributary_result_bytes_total\{transport="mcp"\} 150\n/);
    o.statement(report(3));
    await o.close();
    const lines = readFileSync(path, 'utf8')
      .split('\n')
      .filter(Boolean)
      .map((l) => JSON.parse(l));
    assert.deepEqual(
      lines.map((l) => [l.transport, l.sql, l.sources, l.error_code]),
      [
        ['mcp', 'SELECT name FROM pg.t WHERE id = ?', ['pg'], null],
        ['http', 'SELECT name FROM pg.t WHERE id = ?', ['pg'], 1054],
        ['mcp', 'SELECT name FROM pg.t WHERE id = ?', ['pg'], null],
      ],
    );
    assert.ok(Date.parse(lines[0].time) >= before - 1 && Date.parse(lines[0].time) <= Date.now());
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('a full batch is worked through at the next turn of the loop, not at the timer', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'tributary-observer-unit-'));
  let looked = 0;
  const o = new Observer({
    metrics: false,
    auditLog: join(dir, 'audit.jsonl'),
    sourceNames: async () => {
      looked++;
      return ['pg'];
    },
    pools: async () => [],
  });
  try {
    for (let i = 0; i < 600; i++) o.statement(report(i));
    assert.equal(looked, 0);
    await turn();
    // All 600 at once, with one look-up of the source names, long before the timer.
    assert.equal(looked, 1);
    await o.close();
    assert.equal(readFileSync(join(dir, 'audit.jsonl'), 'utf8').split('\n').filter(Boolean).length, 600);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
