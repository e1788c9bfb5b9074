// Builds the web console (src/console/) into dist/console/: index.html and assets/ with
// content-hashed names, so the server can cache the assets forever and the page never.
// Usage: node scripts/build-console.mjs [outDir]   (also imported by the tests and build-if-needed)
import { createHash, randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { basename, dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import * as esbuild from 'esbuild';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');

/** Builds into a scratch folder, then swaps it in, so a running server never reads half a build. */
export async function buildConsole(outDir = join(root, 'dist', 'console')) {
  const scratch = `${outDir}.tmp-${randomBytes(4).toString('hex')}`;
  const assets = join(scratch, 'assets');
  mkdirSync(assets, { recursive: true });
  try {
    const result = await esbuild.build({
      entryPoints: [join(root, 'src/console/main.ts')],
      bundle: true,
      format: 'esm',
      target: ['chrome110', 'firefox115', 'safari16'],
      minify: true,
      sourcemap: false,
      legalComments: 'linked',
      outdir: assets,
      entryNames: '[name]-[hash]',
      assetNames: '[name]-[hash]',
      metafile: true,
      logLevel: 'silent',
    });
    const outputs = Object.keys(result.metafile.outputs).map((p) => basename(p));
    const js = outputs.find((n) => /^main-.*\.js$/.test(n));
    const css = outputs.find((n) => /^main-.*\.css$/.test(n));
    if (!js || !css) throw new Error(`console build: missing outputs (${outputs.join(', ')})`);
    const svg = readFileSync(join(root, 'src/console/favicon.svg'));
    const icon = `favicon-${createHash('sha256').update(svg).digest('hex').slice(0, 8)}.svg`;
    writeFileSync(join(assets, icon), svg);
    const html = readFileSync(join(root, 'src/console/index.html'), 'utf8')
      .replace('%CSS%', `/assets/${css}`)
      .replace('%JS%', `/assets/${js}`)
      .replace('%ICON%', `/assets/${icon}`);
    writeFileSync(join(scratch, 'index.html'), html);
    writeFileSync(join(scratch, 'THIRD-PARTY-LICENSES.txt'), licenses(Object.keys(result.metafile.inputs)));
    rmSync(outDir, { recursive: true, force: true });
    mkdirSync(dirname(outDir), { recursive: true });
    renameSync(scratch, outDir);
  } catch (e) {
    rmSync(scratch, { recursive: true, force: true });
    throw e;
  }
  return outDir;
}

/** The licence text of each npm package bundled into the page (MIT and the like ask for it to travel along). */
function licenses(inputs) {
  const pkgs = new Set();
  for (const i of inputs) {
    const m = /node_modules\/((?:@[^/]+\/)?[^/]+)\//.exec(i);
    if (m) pkgs.add(m[1]);
  }
  const parts = [];
  for (const name of [...pkgs].sort()) {
    const dir = join(root, 'node_modules', name);
    const file = existsSync(dir) ? readdirSync(dir).find((n) => /^(licen[cs]e|copying)/i.test(n)) : undefined;
    const { version, license } = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8'));
    parts.push(
      `${name}@${version} (${license ?? 'see package'})\n\n${file ? readFileSync(join(dir, file), 'utf8').trim() : ''}`,
    );
  }
  return `${parts.join(`\n\n${'-'.repeat(72)}\n\n`)}\n`;
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const out = await buildConsole(process.argv[2] ? resolve(process.argv[2]) : undefined);
  console.log(`console built into ${out}`);
}
