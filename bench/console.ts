/**
 * Web console benchmark: time to interactive in Debian's Chromium (playwright-core), cold
 * (new profile) and warm (reload with the assets cached), against the built server with
 * auth off; "interactive" is the editor shown and the schema list filled. Also the assets'
 * sizes, raw and gzipped. Targets: time to interactive under 1.5 s; assets under 300 KB
 * gzipped. Run alone: `node --import tsx bench/console.ts`.
 */
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { chromium } from 'playwright-core';
import { chromiumArgs, ensureChromium, ensureConsoleBuilt } from '../test/helpers/console.js';
import { round, startChildServer } from './lib.js';

const RUNS = 5;

function assetSizes(): { files: Record<string, { bytes: number; gzip: number }>; gzipTotalKb: number } {
  const dir = 'dist/console/assets';
  const files: Record<string, { bytes: number; gzip: number }> = {};
  let total = 0;
  for (const name of readdirSync(dir)) {
    const body = readFileSync(join(dir, name));
    const gz = gzipSync(body, { level: 9 }).length;
    files[name] = { bytes: body.length, gzip: gz };
    total += gz;
  }
  return { files, gzipTotalKb: round(total / 1024, 1) };
}

export async function benchConsole(): Promise<Record<string, unknown>> {
  ensureConsoleBuilt();
  const executablePath = ensureChromium();
  const server = await startChildServer();
  const cold: number[] = [];
  const warm: number[] = [];
  try {
    for (let i = 0; i < RUNS; i++) {
      const profile = mkdtempSync(join(tmpdir(), 'tributary-bench-chromium-'));
      const args = chromiumArgs(profile).filter(
        (a) => !a.startsWith('--user-data-dir') && a !== '--headless',
      );
      const context = await chromium.launchPersistentContext(profile, {
        executablePath,
        args,
        headless: true,
      });
      try {
        const page = context.pages()[0] ?? (await context.newPage());
        const interactive = async () => {
          await page.locator('.cm-content').waitFor();
          await page.locator('.schema details').first().waitFor();
        };
        let t0 = performance.now();
        await page.goto(`${server.url}/`);
        await interactive();
        cold.push(performance.now() - t0);
        t0 = performance.now();
        await page.reload();
        await interactive();
        warm.push(performance.now() - t0);
      } finally {
        await context.close();
        rmSync(profile, { recursive: true, force: true });
      }
    }
  } finally {
    await server.stop();
  }
  const med = (xs: number[]) => round([...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!, 0);
  const sizes = assetSizes();
  return {
    tti_cold_ms_median: med(cold),
    tti_cold_ms_max: round(Math.max(...cold), 0),
    tti_warm_ms_median: med(warm),
    assets: sizes.files,
    assets_gzip_total_kb: sizes.gzipTotalKb,
    targets: { tti_ms: 1500, assets_gzip_kb: 300 },
    ok: med(cold) < 1500 && sizes.gzipTotalKb < 300,
  };
}

if (import.meta.url === `file://${process.argv[1]}`) {
  console.log(JSON.stringify(await benchConsole(), null, 2));
}
