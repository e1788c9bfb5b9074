/**
 * The web console's routes: GET / with its security and cache headers, the hashed assets,
 * the same auth as the API (the page is public, its data is not), and the source routes it
 * uses (GET /api/sources, POST /api/sources/{name}/test).
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import mysql from 'mysql2/promise';
import { ensureConsoleBuilt } from '../../helpers/console.js';
import { mariaParams, startTestServer, type TestServer } from '../../helpers/server.js';
import { createMariaDatabase, MARIADB, mariaExec } from '../../helpers/services.js';

function assetsOf(html: string): string[] {
  return [...html.matchAll(/(?:href|src)="(\/assets\/[^"]+)"/g)].map((m) => m[1]);
}

describe('console without auth', () => {
  let server: TestServer;
  before(async () => {
    ensureConsoleBuilt();
    server = await startTestServer();
  });
  after(async () => {
    await server?.stop();
  });

  test('GET / is the page, with a strict CSP and no caching', async () => {
    const res = await fetch(`${server.url}/`);
    assert.equal(res.status, 200);
    assert.match(res.headers.get('content-type') ?? '', /^text\/html/);
    const csp = res.headers.get('content-security-policy') ?? '';
    assert.match(csp, /default-src 'none'/);
    assert.match(csp, /script-src 'self'(;|$)/);
    assert.match(csp, /frame-ancestors 'none'/);
    assert.doesNotMatch(csp, /unsafe-inline|unsafe-eval|https?:/);
    assert.equal(res.headers.get('x-content-type-options'), 'nosniff');
    assert.equal(res.headers.get('x-frame-options'), 'DENY');
    assert.equal(res.headers.get('cache-control'), 'no-cache');
    const html = await res.text();
    assert.doesNotMatch(html, /<script>|<script(?![^>]*\bsrc=)[^>]*>/, 'no inline script');
    assert.doesNotMatch(html, /https?:\/\//, 'no absolute URL: nothing from a CDN');
    assert.equal(assetsOf(html).length, 3);
  });

  test('assets are served with immutable caching, gzip on request; an unknown one is 404', async () => {
    const html = await (await fetch(`${server.url}/`)).text();
    let gzTotal = 0;
    for (const path of assetsOf(html)) {
      assert.match(path, /-[A-Za-z0-9]{8}\.(js|css|svg)$/, 'content-hashed name');
      const res = await fetch(`${server.url}${path}`, { headers: { 'accept-encoding': 'gzip' } });
      assert.equal(res.status, 200, path);
      assert.equal(res.headers.get('cache-control'), 'public, max-age=31536000, immutable');
      assert.equal(res.headers.get('x-content-type-options'), 'nosniff');
      const type = res.headers.get('content-type') ?? '';
      if (path.endsWith('.js')) assert.match(type, /^text\/javascript/);
      if (path.endsWith('.css')) assert.match(type, /^text\/css/);
      gzTotal += Number(res.headers.get('content-length') ?? (await res.arrayBuffer()).byteLength);
      if (res.bodyUsed === false) await res.arrayBuffer();
    }
    assert.ok(gzTotal < 1.5 * 1024 * 1024, `the page's assets are ${gzTotal} bytes gzipped`);
    const missing = await fetch(`${server.url}/assets/main-NOSUCH00.js`);
    assert.equal(missing.status, 404);
    assert.equal(((await missing.json()) as { error_code: string }).error_code, 'not_found');
  });

  test('GET /api/sources names each source with its engine; test answers ok or 404', async () => {
    const list = await (await fetch(`${server.url}/api/sources`)).json();
    assert.deepEqual(list, [{ name: 'files', engine: 'files' }]);
    const ok = (await (await fetch(`${server.url}/api/sources/files/test`, { method: 'POST' })).json()) as {
      ok: boolean;
      latency_ms: number;
    };
    assert.equal(ok.ok, true);
    assert.equal(typeof ok.latency_ms, 'number');
    const none = await fetch(`${server.url}/api/sources/nosuch/test`, { method: 'POST' });
    assert.equal(none.status, 404);
    assert.equal(((await none.json()) as { error_code: string }).error_code, 'datasource_not_found');
  });
});

describe('console with token auth', () => {
  let server: TestServer;
  before(async () => {
    ensureConsoleBuilt();
    server = await startTestServer({ TRIBUTARY_USERNAME: 'admin', TRIBUTARY_PASSWORD: 'secret-pw' });
  });
  after(async () => {
    await server?.stop();
  });

  test('the page and its assets are public; no data route answers without the token', async () => {
    const page = await fetch(`${server.url}/`);
    assert.equal(page.status, 200);
    for (const path of assetsOf(await page.text()))
      assert.equal((await fetch(`${server.url}${path}`)).status, 200);
    for (const [method, path] of [
      ['GET', '/api/status'],
      ['GET', '/api/sources'],
      ['POST', '/api/sources/files/test'],
      ['GET', '/api/files'],
      ['POST', '/api/sql/query'],
    ]) {
      const res = await fetch(`${server.url}${path}`, { method });
      assert.equal(res.status, 401, `${method} ${path}`);
    }
    const login = await fetch(`${server.url}/api/login`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ username: 'admin', password: 'secret-pw' }),
    });
    const { token } = (await login.json()) as { token: string };
    const status = await fetch(`${server.url}/api/status`, { headers: { authorization: `Bearer ${token}` } });
    assert.equal(((await status.json()) as { auth_mode: string }).auth_mode, 'token');
    const sources = await fetch(`${server.url}/api/sources`, {
      headers: { authorization: `Bearer ${token}` },
    });
    assert.equal(sources.status, 200);
  });
});

describe('a query the client stops waiting for', () => {
  let server: TestServer;
  let db: Awaited<ReturnType<typeof createMariaDatabase>>;
  before(async () => {
    db = await createMariaDatabase('console_cancel');
    await mariaExec(db.database, 'CREATE TABLE n (x INT); INSERT INTO n VALUES (1)');
    server = await startTestServer();
    const r = await server.sql(
      `CREATE DATABASE my WITH ENGINE = 'mariadb', PARAMETERS = ${mariaParams(db.database)}`,
    );
    assert.equal(r.type, 'ok', JSON.stringify(r));
  });
  after(async () => {
    await server?.stop();
    await db?.drop();
  });

  test('is cancelled at its source when the fetch is aborted (the console Cancel button)', {
    timeout: 30_000,
  }, async () => {
    const abort = new AbortController();
    const pending = fetch(`${server.url}/api/sql/query`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ query: 'SELECT SLEEP(20) FROM my.n LIMIT 1' }),
      signal: abort.signal,
    }).catch((e: Error) => e);
    const c = await mysql.createConnection({ ...MARIADB, database: db.database });
    const running = async () => {
      const [rows] = await c.query(
        "SELECT COUNT(*) AS n FROM information_schema.PROCESSLIST WHERE DB = ? AND INFO LIKE '%SLEEP(20)%' AND ID <> CONNECTION_ID()",
        [db.database],
      );
      return Number((rows as { n: number }[])[0].n);
    };
    try {
      const until = async (want: (n: number) => boolean) => {
        const end = Date.now() + 10_000;
        while (Date.now() < end) {
          if (want(await running())) return true;
          await new Promise((r) => setTimeout(r, 50));
        }
        return false;
      };
      assert.ok(await until((n) => n > 0), 'the statement never started on MariaDB');
      abort.abort();
      assert.equal(((await pending) as Error).name, 'AbortError');
      const t0 = Date.now();
      assert.ok(await until((n) => n === 0), 'the statement still runs on MariaDB after the client left');
      assert.ok(Date.now() - t0 < 5_000);
    } finally {
      await c.end();
    }
  });
});
