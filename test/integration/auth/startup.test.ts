import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { after, describe, test } from 'node:test';
import { tempStorage } from './helpers/server.js';

const storage = tempStorage();
after(() => storage.remove());

/** Runs the real CLI with only these variables; returns its exit code and stderr. */
function runCli(env: Record<string, string>): Promise<{ code: number | null; stderr: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, ['--import', 'tsx', 'src/cli/main.ts'], {
      env: {
        PATH: process.env.PATH ?? '',
        HOME: storage.dir,
        TRIBUTARY_STORAGE_DIR: storage.dir,
        TRIBUTARY_HTTP_PORT: '0',
        TRIBUTARY_MYSQL_PORT: '0',
        ...env,
      },
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    let stderr = '';
    child.stderr.on('data', (d) => {
      stderr += String(d);
    });
    // A configuration that wrongly starts is stopped, and the test fails on the exit code.
    const timer = setTimeout(() => child.kill('SIGKILL'), 30_000);
    child.on('exit', (code) => {
      clearTimeout(timer);
      resolve({ code, stderr });
    });
  });
}

const SECRET = 'client-secret-never-printed-123';

describe('start-up refuses a bad auth configuration, naming the variable', () => {
  const cases: [string, Record<string, string>, string][] = [
    ['username without password', { TRIBUTARY_USERNAME: 'admin' }, 'TRIBUTARY_PASSWORD'],
    ['password without username', { TRIBUTARY_PASSWORD: 'pw-never-printed-456' }, 'TRIBUTARY_USERNAME'],
    ['OAuth without an issuer', { TRIBUTARY_MCP_OAUTH_ENABLED: 'true' }, 'TRIBUTARY_MCP_OAUTH_ISSUER_URL'],
    [
      'an issuer over plain http off loopback',
      { TRIBUTARY_MCP_OAUTH_ENABLED: 'true', TRIBUTARY_MCP_OAUTH_ISSUER_URL: 'http://auth.example.com' },
      'TRIBUTARY_MCP_OAUTH_ISSUER_URL',
    ],
    [
      'a client secret without a client id',
      {
        TRIBUTARY_MCP_OAUTH_ENABLED: 'true',
        TRIBUTARY_MCP_OAUTH_ISSUER_URL: 'https://auth.example.com',
        TRIBUTARY_MCP_OAUTH_CLIENT_SECRET: SECRET,
      },
      'TRIBUTARY_MCP_OAUTH_CLIENT_ID',
    ],
    [
      'a client id without a secret',
      {
        TRIBUTARY_MCP_OAUTH_ENABLED: 'true',
        TRIBUTARY_MCP_OAUTH_ISSUER_URL: 'https://auth.example.com',
        TRIBUTARY_MCP_OAUTH_CLIENT_ID: 'tributary',
      },
      'TRIBUTARY_MCP_OAUTH_CLIENT_SECRET',
    ],
    ['a bad boolean', { TRIBUTARY_MCP_OAUTH_ENABLED: 'maybe' }, 'TRIBUTARY_MCP_OAUTH_ENABLED'],
    ['a bad rate', { TRIBUTARY_MCP_RATE_LIMIT_RPM: '-3' }, 'TRIBUTARY_MCP_RATE_LIMIT_RPM'],
    ['a bad origin regex', { TRIBUTARY_MCP_ALLOW_ORIGIN_REGEXP: '(' }, 'TRIBUTARY_MCP_ALLOW_ORIGIN_REGEXP'],
  ];
  for (const [name, env, variable] of cases) {
    test(name, async () => {
      const { code, stderr } = await runCli(env);
      assert.notEqual(code, 0);
      assert.ok(stderr.includes(variable), `stderr should name ${variable}: ${stderr}`);
      assert.ok(!stderr.includes(SECRET) && !stderr.includes('pw-never-printed-456'), stderr);
      assert.ok(!/\n\s+at /.test(stderr), `no stack trace: ${stderr}`);
    });
  }
});
