// Runs the whole suite with node's test runner (unit first, then integration).
// Usage: node scripts/run-tests.mjs [unit|integration] [extra node --test args]
import { spawnSync } from 'node:child_process';
import { readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';

function find(dir) {
  let out = [];
  let names = [];
  try {
    names = readdirSync(dir);
  } catch {
    return out;
  }
  for (const n of names) {
    const p = join(dir, n);
    if (statSync(p).isDirectory()) out = out.concat(find(p));
    else if (n.endsWith('.test.ts')) out.push(p);
  }
  return out.sort();
}

const which = process.argv[2];
const kinds = which === 'unit' || which === 'integration' ? [which] : ['unit', 'integration'];
const files = kinds.flatMap((k) => find(join('test', k)));
if (files.length === 0) {
  console.error('no test files found');
  process.exit(1);
}
const extra = process.argv.slice(which && kinds.length === 1 ? 3 : 2);
const r = spawnSync(
  process.execPath,
  ['--import', 'tsx', '--test', '--test-concurrency=1', '--test-reporter=spec', ...extra, ...files],
  { stdio: 'inherit', env: { ...process.env, NODE_ENV: 'test' } },
);
process.exit(r.status ?? 1);
