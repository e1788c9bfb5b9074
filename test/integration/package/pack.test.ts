/**
 * One-line install (issue 33): `npm pack` of this checkout builds what it ships (`prepack`),
 * carries the lockfile's tree as npm-shrinkwrap.json, and the tarball installed into an
 * empty directory answers as `tributary query --demo`, as an MCP stdio server, and through
 * `npx <tarball>`. Installs run `--offline` from npm's cache (filled by `npm ci`): a test
 * sends nothing past loopback.
 */
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { promisify } from 'node:util';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';

const run = promisify(execFile);
const root = new URL('../../../', import.meta.url).pathname;
const npm = process.platform === 'win32' ? 'npm.cmd' : 'npm';

describe('the packed tarball installs and answers from an empty directory', { timeout: 600_000 }, () => {
  let work: string;
  let tarball: string;
  let app: string;
  let env: NodeJS.ProcessEnv;

  before(async () => {
    work = mkdtempSync(join(tmpdir(), 'trib-pack-'));
    env = { ...process.env, TRIBUTARY_STORAGE_DIR: join(work, 'storage'), NODE_ENV: 'production' };
    const packed = await run(npm, ['pack', '--json', '--pack-destination', work], {
      cwd: root,
      maxBuffer: 64 * 1024 * 1024,
      env: { ...process.env, NODE_ENV: '' },
    });
    const [info] = JSON.parse(packed.stdout.slice(packed.stdout.indexOf('[')));
    tarball = join(work, info.filename);
    const files = (info.files as { path: string }[]).map((f) => f.path);
    assert.ok(files.includes('dist/cli/main.js'), 'dist/ is built and shipped');
    assert.ok(files.includes('dist/console/index.html'), 'the console is built and shipped');
    assert.ok(files.includes('npm-shrinkwrap.json'), "the lockfile's tree is shipped");
    assert.ok(!files.some((f) => f.startsWith('src/') || f.startsWith('test/')), 'no sources or tests');
    assert.ok(!existsSync(join(root, 'npm-shrinkwrap.json')), 'postpack removed the shrinkwrap');
    app = join(work, 'app');
    await run('mkdir', ['-p', app]);
    writeFileSync(join(app, 'package.json'), '{"name": "app", "private": true}\n');
  });
  after(() => {
    if (work) rmSync(work, { recursive: true, force: true });
  });

  test("installs with the lockfile's versions and no engine warning on this Node line", async () => {
    const out = await run(npm, ['install', '--offline', '--no-audit', '--no-fund', tarball], {
      cwd: app,
      env,
      maxBuffer: 16 * 1024 * 1024,
    });
    const said = `${out.stdout}\n${out.stderr}`;
    assert.doesNotMatch(said, /EBADENGINE/, said);
    const lock = JSON.parse(readFileSync(join(root, 'package-lock.json'), 'utf8'));
    const installed = JSON.parse(readFileSync(join(app, 'node_modules/fastify/package.json'), 'utf8'));
    assert.equal(installed.version, lock.packages['node_modules/fastify'].version);
  });

  test('tributary query --demo answers', async () => {
    const out = await run(
      join(app, 'node_modules/.bin/tributary'),
      ['query', '--demo', '--json', 'SELECT COUNT(*) AS n FROM demo.customers'],
      { cwd: app, env },
    );
    assert.match(out.stdout, /"n"/);
  });

  test('tributary --mcp-stdio --demo serves the query tool to the SDK client', async () => {
    const transport = new StdioClientTransport({
      command: join(app, 'node_modules/.bin/tributary'),
      args: ['--mcp-stdio', '--demo'],
      env: env as Record<string, string>,
      stderr: 'ignore',
    });
    const client = new Client({ name: 'pack-test', version: '1.0.0' });
    await client.connect(transport);
    try {
      const tools = await client.listTools();
      assert.ok(tools.tools.some((t) => t.name === 'query'));
      const r = await client.callTool({
        name: 'query',
        arguments: { query: 'SELECT COUNT(*) AS n FROM demo.customers' },
      });
      assert.ok(!r.isError, JSON.stringify(r));
    } finally {
      await client.close();
    }
  });

  test('npx <tarball> runs it from an empty directory', async () => {
    const empty = join(work, 'empty');
    await run('mkdir', ['-p', empty]);
    const out = await run(
      npm,
      [
        'exec',
        '--yes',
        '--offline',
        `--package=${tarball}`,
        '--',
        'tributary',
        'query',
        '--demo',
        'SELECT 1 AS one',
      ],
      { cwd: empty, env },
    );
    assert.match(out.stdout, /one/);
  });
});
