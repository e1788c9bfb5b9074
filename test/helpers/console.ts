/**
 * The web console's build and a browser for its tests: esbuild bundles src/console/ in about
 * a second, so a test builds it when dist/console/ is missing or older than the source; the
 * browser is Debian's Chromium, installed with apt-get when missing (as services.ts starts a
 * missing database). No browser is ever downloaded by npm.
 */
import { execFileSync, execSync } from 'node:child_process';
import { existsSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';

const CONSOLE_SRC = 'src/console';
const PAGE = 'dist/console/index.html';
export const CHROMIUM = '/usr/bin/chromium';

function newest(dir: string): number {
  let t = 0;
  for (const n of readdirSync(dir)) {
    const p = join(dir, n);
    const s = statSync(p);
    t = Math.max(t, s.isDirectory() ? newest(p) : s.mtimeMs);
  }
  return t;
}

export function ensureConsoleBuilt(): void {
  if (existsSync(PAGE) && statSync(PAGE).mtimeMs >= newest(CONSOLE_SRC)) return;
  execFileSync(process.execPath, ['scripts/build-console.mjs'], { stdio: ['ignore', 'ignore', 'inherit'] });
}

export function ensureChromium(): string {
  if (existsSync(CHROMIUM)) return CHROMIUM;
  execSync('apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium', {
    stdio: 'ignore',
    shell: '/bin/bash',
    timeout: 600_000,
  });
  if (!existsSync(CHROMIUM)) throw new Error(`${CHROMIUM} is missing and apt-get could not install chromium`);
  return CHROMIUM;
}

/** The flags the console's browser test runs Chromium with: headless, no network of its own. */
export function chromiumArgs(userDataDir: string): string[] {
  return [
    '--headless',
    '--no-sandbox',
    '--disable-gpu',
    '--disable-quic',
    '--no-first-run',
    '--disable-background-networking',
    '--disable-component-update',
    '--disable-sync',
    `--user-data-dir=${userDataDir}`,
  ];
}
