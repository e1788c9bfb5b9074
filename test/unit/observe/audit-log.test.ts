/**
 * The audit log gathers lines and writes them together: every statement still gets its line,
 * in order, within the flush interval, a rotation (reopen) writes what waits to the old file
 * first, and close writes the rest.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, renameSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { AuditLines, AuditLog, auditLine } from '../../../src/observe/audit-log.js';
import { readStatement, sourcesIn } from '../../../src/observe/redact.js';
import type { StatementReport } from '../../../src/observe/statement.js';

const report = (i: number): StatementReport => ({
  sql: `SELECT * FROM pg.t WHERE id = ${i}`,
  principal: null,
  transport: 'http',
  rows: 1,
  truncated: false,
  durationMs: 1,
});

const lines = (path: string) =>
  readFileSync(path, 'utf8')
    .split('\n')
    .filter(Boolean)
    .map((l) => JSON.parse(l) as Record<string, unknown>);

test('lines written together arrive whole and in order; reopen and close write what waits', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'tributary-audit-unit-'));
  const path = join(dir, 'audit.jsonl');
  try {
    const log = new AuditLog(path, async () => ['pg']);
    for (let i = 0; i < 500; i++) log.record(report(i));
    await sleep(300);
    const first = lines(path);
    assert.equal(first.length, 500);
    assert.deepEqual(
      first.map((l) => l.sql),
      first.map(() => 'SELECT * FROM pg.t WHERE id = ?'),
    );
    assert.deepEqual(first[0].sources, ['pg']);

    // Rotation: rename the file, log more, reopen: the waiting lines go to the renamed file.
    renameSync(path, `${path}.1`);
    log.record(report(500));
    await sleep(0);
    await sleep(0);
    log.reopen();
    log.record(report(501));
    await log.close();
    assert.equal(lines(`${path}.1`).length, 501);
    assert.equal(lines(path).length, 1);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('the hand-built lines are JSON.stringify of auditLine, field for field, parts reused or not', () => {
  const reports: StatementReport[] = [
    report(7),
    report(8),
    { ...report(9), db: 'pg' },
    { ...report(9), db: 'files' },
    {
      sql: "INSERT INTO pg.t VALUES (1, 'x \\\" \u2028 é') -- \u2028",
      db: 'pg',
      principal: 'al"ice\\',
      transport: 'mcp',
      rows: 0,
      truncated: true,
      affectedRows: 3,
      durationMs: 12.345,
      errorCode: 1064,
    },
    { ...report(10), durationMs: Number.NaN, affectedRows: null, principal: 'bob' },
    { ...report(11), sql: 'SELECT 1 FROM My.t JOIN pg.u', principal: 'bob' },
    { ...report(12), sql: 'SELECT 1 FROM my.t JOIN pg.u', principal: 'bob' },
    // Knowledge bases the engine found: after the sources, as kb:<name>; the next line has none.
    { ...report(13), sql: 'INSERT INTO notes SELECT id, body FROM pg.t', kbs: ['notes'] },
    { ...report(13), sql: 'INSERT INTO notes SELECT id, body FROM pg.t' },
    { ...report(14), sql: "SELECT * FROM a JOIN b WHERE a.content = 'x'", kbs: ['a', 'b'] },
    { ...report(13), principal: 'agent-7', policyRules: ['sources[0]', 'tables[2]'] },
    { ...report(14), principal: 'agent-7', errorCode: 1142, policyDenied: 'no-match' },
  ];
  const times = [
    Date.parse('2026-11-27T10:00:00.000Z'),
    Date.parse('2026-11-27T10:00:00.007Z'),
    Date.parse('2026-11-27T10:00:00.070Z'),
    Date.parse('2026-11-27T10:00:00.999Z'),
    Date.parse('2026-11-27T10:00:01.000Z'),
    Date.parse('1969-12-31T23:59:59.999Z'),
    Date.parse('2026-11-27T10:00:01.5Z') + 0.7,
  ];
  const lines = new AuditLines();
  const known = ['pg', 'my'];
  let n = 0;
  for (const names of [known, known, null, ['pg'], known])
    for (const r of reports)
      for (const at of times) {
        const sources = names === null ? [] : sourcesIn(r.sql, names, r.db);
        const expected = `${JSON.stringify(auditLine(r, sources, new Date(at)))}\n`;
        assert.equal(lines.line(r, readStatement(r.sql), names, at), expected);
        n++;
      }
  assert.equal(n, 5 * reports.length * times.length);
});
