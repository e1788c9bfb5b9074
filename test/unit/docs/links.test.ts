/** Every relative link in README.md and docs/ points at a file in the repository. */
import assert from 'node:assert/strict';
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { test } from 'node:test';

function markdown(dir: string): string[] {
  return readdirSync(dir).flatMap((n) => {
    const p = join(dir, n);
    return statSync(p).isDirectory() ? markdown(p) : p.endsWith('.md') ? [p] : [];
  });
}

test('relative links in README.md and docs/ resolve', () => {
  const broken: string[] = [];
  for (const file of ['README.md', ...markdown('docs')]) {
    const text = readFileSync(file, 'utf8').replace(/```[\s\S]*?```/g, '');
    for (const m of text.matchAll(/\]\(([^)\s]+)\)/g)) {
      const target = m[1];
      if (/^[a-z]+:/i.test(target) || target.startsWith('#')) continue;
      const path = join(dirname(file), decodeURIComponent(target.split('#')[0]));
      if (!existsSync(path)) broken.push(`${file}: ${target}`);
    }
  }
  assert.deepEqual(broken, []);
});
