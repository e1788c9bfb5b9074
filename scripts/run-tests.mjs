// Runs the whole suite with node's test runner (unit first, then integration).
// Usage: node scripts/run-tests.mjs [unit|integration|integration/<dir> ...] [extra node --test args]
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

// Leading arguments that name folders below test/ (`unit`, `integration`,
// `integration/sources`, ...) choose what runs; without any, everything. The rest go to node --test.
const args = process.argv.slice(2);
const roots = [];
while (args.length && /^(unit|integration)(\/[\w./-]+)?$/.test(args[0])) roots.push(args.shift());
const kinds = roots.length ? roots : ['unit', 'integration'];
const files = kinds.flatMap((k) => find(join('test', k)));
if (files.length === 0) {
  console.error('no test files found');
  process.exit(1);
}
const extra = args;
const r = spawnSync(
  process.execPath,
  ['--import', 'tsx', '--test', '--test-concurrency=1', '--test-reporter=spec', ...extra, ...files],
  { stdio: 'inherit', env: { ...process.env, NODE_ENV: 'test' } },
);
process.exit(r.status ?? 1);
