// `npm start` runs the built server; build first when dist/ is missing or older than src/.
import { execSync } from 'node:child_process';
import { existsSync, readdirSync, statSync, utimesSync } from 'node:fs';
import { join } from 'node:path';

function newest(dir) {
  let t = 0;
  for (const n of readdirSync(dir)) {
    const p = join(dir, n);
    const s = statSync(p);
    t = Math.max(t, s.isDirectory() ? newest(p) : s.mtimeMs);
  }
  return t;
}

const entry = 'dist/cli/main.js';
if (!existsSync(entry) || newest('src') > statSync(entry).mtimeMs) {
  execSync('npx tsc -p tsconfig.build.json', { stdio: ['ignore', 'inherit', 'inherit'] });
  // An incremental build rewrites only what changed; mark the entry as built now.
  const now = new Date();
  utimesSync(entry, now, now);
}
// The web console (GET /) is bundled apart, by esbuild.
const page = 'dist/console/index.html';
if (!existsSync(page) || newest('src/console') > statSync(page).mtimeMs) {
  // Loaded only when needed: esbuild is a devDependency, absent from an installed package's tree.
  const { buildConsole } = await import('./build-console.mjs');
  await buildConsole();
}
