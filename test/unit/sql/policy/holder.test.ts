/**
 * The policy file kept current: a good file applies, a bad one keeps the previous policy
 * (and says why in the log), the next good one applies again; a bad file at start fails.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, test } from 'node:test';
import pino from 'pino';
import { PolicyHolder } from '../../../../src/sql/policy/holder.js';

const dir = mkdtempSync(join(tmpdir(), 'i31-policy-holder-'));
after(() => rmSync(dir, { recursive: true, force: true }));

function logger() {
  const lines: Record<string, unknown>[] = [];
  const log = pino({ level: 'info' }, { write: (s: string) => lines.push(JSON.parse(s)) });
  return { log, lines };
}

const file = (allow: string, pad = '') => JSON.stringify({ sources: [{ source: 'crm', allow }] }) + pad;

describe('policy file reload', () => {
  test('good → bad keeps the previous → good applies, each seen on the next look', () => {
    const path = join(dir, 'reload.json');
    writeFileSync(path, file('read'));
    const { log, lines } = logger();
    // checkMs 0: every look checks the file (the server looks at most once a second).
    const h = new PolicyHolder(path, log, 0);
    try {
      assert.equal(h.current().sources[0].allow, 'read');
      writeFileSync(path, JSON.stringify({ sources: [{ source: 'crm', allow: 'maybe' }] }));
      assert.equal(h.current().sources[0].allow, 'read');
      const refused = lines.find((l) => l.msg === 'policy file refused; keeping the previous policy');
      assert.ok(refused, JSON.stringify(lines));
      assert.match(String(refused.err), /^sources\[0\]\.allow: expected one of all, read, none/);
      writeFileSync(path, file('all', '\n'));
      assert.equal(h.current().sources[0].allow, 'all');
      assert.equal(h.version, 1);
    } finally {
      h.close();
    }
  });

  test('a file that disappears keeps the previous policy', () => {
    const path = join(dir, 'gone.json');
    writeFileSync(path, file('all'));
    const { log } = logger();
    const h = new PolicyHolder(path, log, 0);
    try {
      rmSync(path);
      assert.equal(h.current().sources[0].allow, 'all');
    } finally {
      h.close();
    }
  });

  test('without a look, fs.watch alone applies a change', async () => {
    const path = join(dir, 'watched.json');
    writeFileSync(path, file('read'));
    const { log } = logger();
    const h = new PolicyHolder(path, log, 60_000);
    try {
      writeFileSync(path, file('none', '  '));
      const until = Date.now() + 5000;
      // current() does not look at the file for a minute here: only the watcher can change it.
      while (h.current().sources[0].allow !== 'none' && Date.now() < until)
        await new Promise((r) => setTimeout(r, 20));
      assert.equal(h.current().sources[0].allow, 'none');
    } finally {
      h.close();
    }
  });

  test('a bad file at start fails, naming the file and the rule', () => {
    const path = join(dir, 'bad.json');
    writeFileSync(path, JSON.stringify({ tables: [{ privileges: ['SELECT'], filter: 'a = (' }] }));
    const { log } = logger();
    assert.throws(
      () => new PolicyHolder(path, log),
      /^PolicyError: policy.file .*bad\.json: tables\[0\]\.filter: /,
    );
    assert.throws(
      () => new PolicyHolder(join(dir, 'missing.json'), log),
      /^PolicyError: policy.file .*missing\.json: cannot be read: ENOENT/,
    );
  });
});
