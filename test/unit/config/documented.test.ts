/**
 * The configuration reference (docs/reference/configuration.md) names every key and every
 * environment variable the code reads: a key added without its line fails here.
 */
import assert from 'node:assert/strict';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { FIELDS } from '../../../src/config/fields.js';

const doc = readFileSync('docs/reference/configuration.md', 'utf8');

function sources(dir: string): string[] {
  return readdirSync(dir).flatMap((n) => {
    const p = join(dir, n);
    return statSync(p).isDirectory() ? sources(p) : p.endsWith('.ts') ? [p] : [];
  });
}

test('every configuration key and its environment variable are documented', () => {
  for (const f of FIELDS) {
    assert.ok(doc.includes(`\`${f.path}\``), `${f.path} is not in docs/reference/configuration.md`);
    if (f.env) assert.ok(doc.includes(`\`${f.env}\``), `${f.env} is not in docs/reference/configuration.md`);
  }
});

test('every TRIBUTARY_ variable the code reads is documented', () => {
  const names = new Set<string>();
  for (const p of sources('src'))
    for (const m of readFileSync(p, 'utf8').matchAll(/TRIBUTARY_[A-Z0-9_]+/g)) names.add(m[0]);
  const missing = [...names].filter((n) => !doc.includes(`\`${n}\``));
  assert.deepEqual(missing, []);
});
