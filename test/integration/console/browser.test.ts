/**
 * The web console in a real browser: Debian's Chromium driven by playwright-core (no browser
 * download), against the real server with token auth on and real PostgreSQL and MariaDB.
 * Every request the page makes is checked to stay on 127.0.0.1. Screenshots of each step go
 * to a temporary folder (named in the test output), never into the repository.
 */
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { type BrowserContext, chromium, type Page } from 'playwright-core';
import { chromiumArgs, ensureChromium, ensureConsoleBuilt } from '../../helpers/console.js';
import { startTestServer, type TestServer } from '../../helpers/server.js';
import { createMariaDatabase, createPgDatabase, mariaExec, pgExec } from '../../helpers/services.js';

let server: TestServer;
let context: BrowserContext;
let page: Page;
let profile: string;
let shots: string;
let pgDb: Awaited<ReturnType<typeof createPgDatabase>>;
let myDb: Awaited<ReturnType<typeof createMariaDatabase>>;
const offHost: string[] = [];
const pageErrors: string[] = [];

before(async () => {
  ensureConsoleBuilt();
  const executablePath = ensureChromium();
  pgDb = await createPgDatabase('console_e2e');
  await pgExec(
    pgDb.database,
    "CREATE TABLE customers (id int, name text); INSERT INTO customers VALUES (1, 'Ada'), (2, 'Bo')",
  );
  // Known values for the chart checks: revenue in the tens of thousands, two series per country.
  await pgExec(
    pgDb.database,
    `CREATE TABLE sales (country text, ordered_on date, revenue numeric(12,2), orders int);
     INSERT INTO sales VALUES ('DE', '2024-01-01', 38000, 12), ('FR', '2024-01-02', 10000, 30),
       ('NL', '2024-01-03', 24500, 7), ('SE', '2024-01-04', 1250, 21)`,
  );
  myDb = await createMariaDatabase('console_e2e');
  await mariaExec(
    myDb.database,
    'CREATE TABLE orders (id INT, customer_id INT, total DECIMAL(8,2)); INSERT INTO orders VALUES (10, 1, 5.50), (11, 1, 7.25), (12, 2, 3.00)',
  );
  server = await startTestServer({ TRIBUTARY_USERNAME: 'admin', TRIBUTARY_PASSWORD: 'console-pw' });
  // Two million rows, as an uploaded file (fast to read back), for paging to the last row.
  const login = await fetch(`${server.url}/api/login`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ username: 'admin', password: 'console-pw' }),
  });
  const { token } = (await login.json()) as { token: string };
  const ids: string[] = ['id'];
  for (let i = 1; i <= 2_000_000; i++) ids.push(String(i));
  const up = await fetch(`${server.url}/api/files/big`, {
    method: 'PUT',
    headers: { authorization: `Bearer ${token}`, 'content-type': 'text/csv' },
    body: `${ids.join('\n')}\n`,
  });
  assert.equal(up.status, 201, await up.text());
  await fetch(`${server.url}/api/logout`, { method: 'POST', headers: { authorization: `Bearer ${token}` } });
  profile = mkdtempSync(join(tmpdir(), 'tributary-chromium-'));
  shots = join(tmpdir(), `tributary-console-shots-${process.pid}`);
  mkdirSync(shots, { recursive: true });
  const args = chromiumArgs(profile).filter((a) => !a.startsWith('--user-data-dir') && a !== '--headless');
  context = await chromium.launchPersistentContext(profile, {
    executablePath,
    args,
    headless: true,
    viewport: { width: 1280, height: 800 },
  });
  // Anything but the server on loopback is refused and remembered: the page must need nothing else.
  await context.route('**/*', (route) => {
    const url = new URL(route.request().url());
    if (
      url.hostname === '127.0.0.1' ||
      url.hostname === 'localhost' ||
      url.protocol === 'blob:' ||
      url.protocol === 'data:'
    )
      return route.continue();
    offHost.push(url.href);
    return route.abort();
  });
  page = context.pages()[0] ?? (await context.newPage());
  page.on('pageerror', (e) => pageErrors.push(e.message));
  page.on('console', (m) => {
    if (m.type() === 'error') pageErrors.push(m.text());
  });
});

after(async () => {
  await context?.close().catch(() => {});
  await server?.stop();
  await pgDb?.drop();
  await myDb?.drop();
  if (profile) rmSync(profile, { recursive: true, force: true });
});

async function shot(name: string): Promise<void> {
  await page.screenshot({ path: join(shots, `${name}.png`) });
}

/** Replaces the editor's text and runs it: Ctrl+Enter (the statement at the cursor) or Ctrl+Shift+Enter (all). */
async function runSql(text: string, all = false): Promise<void> {
  await page.locator('.cm-content').click();
  await page.keyboard.press('Control+A');
  await page.keyboard.press('Delete');
  await page.keyboard.insertText(text);
  await page.keyboard.press(all ? 'Control+Shift+Enter' : 'Control+Enter');
  await page.locator('.results .running').waitFor({ state: 'detached' });
}

async function login(): Promise<void> {
  await page.goto(`${server.url}/`);
  await page.locator('#login-user').waitFor();
  await page.fill('#login-user', 'admin');
  await page.fill('#login-pass', 'console-pw');
  await page.keyboard.press('Enter');
  await page.locator('.cm-content').waitFor();
}

async function tab(name: string): Promise<void> {
  await page.getByRole('tab', { name, exact: true }).click();
}

test('log in, query, grid, errors, plan, chart, sources, files, knowledge base search, log out', {
  timeout: 120_000,
}, async (t) => {
  const t0 = performance.now();
  await page.goto(`${server.url}/`);
  await page.locator('#login-user').waitFor();
  const loginShown = performance.now() - t0;
  await shot('01-login');
  await page.fill('#login-user', 'admin');
  await page.fill('#login-pass', 'wrong');
  await page.keyboard.press('Enter');
  await page.getByText('Invalid username or password').waitFor();
  await page.fill('#login-pass', 'console-pw');
  const t1 = performance.now();
  await page.keyboard.press('Enter');
  await page.locator('.cm-content').waitFor();
  const editorShown = performance.now() - t1;
  t.diagnostic(
    `login form after ${Math.round(loginShown)} ms; editor ${Math.round(editorShown)} ms after login`,
  );
  // The token is in memory only.
  const stored = String(
    await page.evaluate('JSON.stringify([{ ...localStorage }, { ...sessionStorage }, document.cookie])'),
  );
  assert.doesNotMatch(stored, /token|Bearer/i);

  // A first query: NULL apart from '', and markup shown as text.
  await runSql(
    `SELECT 1 AS a, NULL AS b, '' AS c, '<img src=x onerror="document.title=1"><script>x</script>' AS d`,
  );
  await page.locator('.grid-rows .grid-row').first().waitFor();
  assert.equal(await page.locator('.grid-rows .cell.null').innerText(), 'NULL');
  assert.equal(await page.locator('.grid-rows .cell.empty').count(), 1);
  assert.equal(await page.locator('.grid img, .grid script').count(), 0);
  assert.match(await page.locator('.grid-rows').innerText(), /<img src=x onerror=/);
  assert.notEqual(await page.title(), '1');
  await shot('02-first-query');

  // 10,000 rows: the count says so, the DOM holds a window of them, scrolling reaches the end.
  const tRows = performance.now();
  await runSql(
    "WITH RECURSIVE t(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM t WHERE n < 10000) SELECT n, n * 2 AS m, CONCAT('row ', n) AS label FROM t",
  );
  await page.getByText('10,000 rows').waitFor();
  t.diagnostic(`10,000 rows fetched and drawn ${Math.round(performance.now() - tRows)} ms after Ctrl+Enter`);
  const domRows = await page.locator('.grid-rows .grid-row').count();
  assert.ok(domRows > 0 && domRows < 120, `${domRows} rows in the DOM`);
  await page.locator('.grid').evaluate((g) => {
    g.scrollTop = g.scrollHeight;
  });
  await page.locator('.grid-rows .cell.num', { hasText: /^10000$/ }).waitFor();
  assert.ok((await page.locator('.grid-rows .grid-row').count()) < 120);
  await shot('03-ten-thousand-rows');

  // An error shows its MySQL code.
  await runSql('SELECT * FROM nosuch.t');
  await page.locator('.results .error', { hasText: 'Error 1049' }).waitFor();
  assert.match(await page.locator('.results .error').innerText(), /Unknown database 'nosuch'/);
  await shot('04-error');

  // Sources through the form: PostgreSQL and MariaDB.
  await tab('Sources');
  for (const [name, engine, port, user, database] of [
    ['pg', 'postgres', '5432', 'postgres', pgDb.database],
    ['my', 'mariadb', '3306', 'root', myDb.database],
  ]) {
    await page.selectOption('#src-engine', engine);
    await page.fill('#src-name', name);
    await page.fill('#src-p-host', '127.0.0.1');
    await page.fill('#src-p-port', port);
    await page.fill('#src-p-user', user);
    await page.fill('#src-p-database', database);
    assert.equal(await page.locator('#src-p-password').getAttribute('type'), 'password');
    await page.getByRole('button', { name: 'Create and test' }).click();
    await page.getByText(`Source '${name}' created.`).waitFor();
  }
  const pgRow = page.locator('tr', { has: page.locator('td', { hasText: /^pg$/ }) });
  await pgRow.getByRole('button', { name: 'Test' }).click();
  await pgRow.locator('.good').waitFor();
  assert.match(await pgRow.innerText(), /postgres/);
  await shot('05-sources');

  // A cross-source join, its plan, and a chart.
  await tab('Query');
  const join =
    'SELECT c.name, SUM(o.total) AS spent FROM pg.customers c JOIN my.orders o ON o.customer_id = c.id GROUP BY c.name ORDER BY c.name';
  await runSql(join);
  await page.getByText('2 rows').waitFor();
  assert.match(await page.locator('.grid-rows').innerText(), /Ada[\s\S]*12\.75/);
  await page.getByRole('button', { name: 'Chart' }).click();
  await page.locator('.chart canvas').waitFor();
  assert.match(await page.locator('.chart-wrap').innerText(), /Bar chart of spent by name/);
  await shot('06-chart');
  await runSql(`EXPLAIN ${join}`);
  await page.locator('.plan').waitFor();
  const plan = await page.locator('.plan').innerText();
  assert.match(plan, /Each source runs/);
  assert.match(plan, /\bpg\b/);
  assert.match(plan, /\bmy\b/);
  assert.match(plan, /Runs locally/);
  await shot('07-plan');

  // Files: upload with progress, listed, queried.
  await tab('Files');
  await page.setInputFiles('#file-pick', {
    name: 'people.csv',
    mimeType: 'text/csv',
    buffer: Buffer.from('name,age\nann,31\nbob,42\ncid,27\n'),
  });
  const row = page.locator('tr', { has: page.locator('td', { hasText: 'files.people' }) });
  await row.waitFor();
  assert.match(await row.innerText(), /csv\s+3\s+2\s/);
  assert.equal(await page.locator('.upload progress').getAttribute('value'), '100');
  await shot('08-files');
  await row.getByRole('button', { name: 'Query' }).click();
  await page.getByText('3 rows').waitFor();

  // Knowledge bases: one made from the uploaded file in the editor, listed, and searched with relevance shown.
  await tab('Query');
  await runSql(
    `CREATE KNOWLEDGE_BASE people_kb USING embedding_model = {"provider": "builtin"};
INSERT INTO people_kb SELECT age AS id, CONCAT(name, ' drinks ', IF(age > 30, 'tea', 'coffee')) AS content FROM files.people`,
    true,
  );
  await tab('Knowledge bases');
  await page.getByRole('button', { name: 'Refresh' }).click();
  await page.locator('.panel .list', { hasText: 'people_kb' }).waitFor();
  await page.selectOption('#kb-name', 'people_kb');
  await page.fill('#kb-q', 'who drinks coffee');
  await page.getByRole('button', { name: 'Search' }).click();
  await page.getByText('cid drinks coffee').waitFor();
  assert.match(
    await page.locator('[aria-live] .grid-head, [aria-live] .grid').first().innerText(),
    /relevance/,
  );
  await shot('09-knowledge-base-search');

  // Log out: back to the login form, and the old token no longer works.
  await tab('Query');
  await shot('10-query-1280x800');
  // A narrow window stacks the schema above the editor.
  await page.setViewportSize({ width: 420, height: 800 });
  await shot('11-narrow-query');
  await page.getByRole('button', { name: 'Log out' }).click();
  await page.locator('#login-user').waitFor();
  await shot('12-narrow-logged-out');

  // A reload, with the assets cached, to the login form; the token did not survive it.
  const t2 = performance.now();
  await page.reload();
  await page.locator('#login-user').waitFor();
  t.diagnostic(`reload to the login form: ${Math.round(performance.now() - t2)} ms`);
  t.diagnostic(`screenshots in ${shots}`);

  assert.deepEqual(offHost, [], 'requests that left 127.0.0.1');
  assert.deepEqual(
    pageErrors.filter((e) => !/401|Unauthorized|Failed to load resource/.test(e)),
    [],
    'errors in the page (a CSP refusal would show here)',
  );
});

test('charts: axis labels whole, bars from zero, series side by side, type and columns chosen, PNG', {
  timeout: 60_000,
}, async () => {
  await login();
  await page.setViewportSize({ width: 1400, height: 900 });
  await runSql('SELECT country, revenue, orders FROM pg.sales ORDER BY country');
  await page.getByRole('button', { name: 'Chart' }).click();
  await page.locator('.chart canvas').waitFor();
  await page.locator('.chart-axes li').first().waitFor({ state: 'attached' });
  assert.match(await page.locator('.chart-caption').innerText(), /Bar chart of revenue, orders by country/);
  const yLabels = await page.locator('.chart-axes [data-axis="y"] li').allTextContents();
  // Every label whole, with grouping; the axis starts at 0 and reaches past the largest value.
  for (const l of yLabels) assert.match(l, /^-?\d{1,3}(,\d{3})*(\.\d+)?$/, `label ${l}`);
  assert.equal(yLabels[0], '0');
  const top = Math.max(...yLabels.map((l) => Number(l.replace(/,/g, ''))));
  assert.ok(top >= 35_000 && top <= 60_000, `top label ${top} (${yLabels.join(' | ')})`);
  assert.ok(yLabels.includes('10,000'), yLabels.join(' | '));
  // The plot starts right of the widest label as the page's own font draws it.
  const room = (await page.evaluate(`(() => {
    const ctx = document.createElement('canvas').getContext('2d');
    ctx.font = '12px system-ui, -apple-system, "Segoe UI", Roboto, "DejaVu Sans", sans-serif';
    const labels = ${JSON.stringify(yLabels)};
    const widest = Math.max(...labels.map((l) => ctx.measureText(l).width));
    return { widest, left: Number(document.querySelector('.chart').dataset.plotLeft) };
  })()`)) as { widest: number; left: number };
  assert.ok(room.left >= room.widest + 6, `plot left ${room.left} px, widest label ${room.widest} px`);
  // Orders (tens) next to revenue (tens of thousands) get their own, right axis, also from zero.
  const right = await page.locator('.chart-axes [data-axis="y2"] li').allTextContents();
  assert.equal(right[0], '0');
  assert.ok(right.includes('30') || right.includes('25') || right.includes('20'), right.join(' | '));
  await shot('13-chart-grouped-bars-1400x900');

  // A date column suggests a line; the user keeps one series, then makes it an area, then bars by country.
  await runSql('SELECT ordered_on, revenue, orders, country FROM pg.sales');
  await page.getByRole('button', { name: 'Chart' }).click();
  await page.locator('.chart-caption', { hasText: 'Line chart of revenue, orders by ordered_on' }).waitFor();
  await page.getByRole('checkbox', { name: 'orders' }).uncheck();
  await page.locator('.chart-caption', { hasText: 'Line chart of revenue by ordered_on' }).waitFor();
  await page.selectOption('#chart-type', 'area');
  await page.locator('.chart-caption', { hasText: 'Area chart of revenue by ordered_on' }).waitFor();
  await page.locator('.chart-axes li').first().waitFor({ state: 'attached' });
  assert.equal((await page.locator('.chart-axes [data-axis="y"] li').allTextContents())[0], '0');
  await shot('14-chart-area-1400x900');
  await page.selectOption('#chart-type', 'bar');
  await page.selectOption('#chart-x', { label: 'country (text)' });
  await page.locator('.chart-caption', { hasText: 'Bar chart of revenue by country' }).waitFor();

  // Save PNG: a real PNG file of the drawn chart.
  const [download] = await Promise.all([
    page.waitForEvent('download'),
    page.getByRole('button', { name: 'Save PNG' }).click(),
  ]);
  const saved = join(shots, 'chart-export.png');
  await download.saveAs(saved);
  const png = readFileSync(saved);
  assert.deepEqual([...png.subarray(0, 8)], [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);
  assert.ok(png.length > 5_000, `${png.length} bytes`);
});

test('editor: tabs kept across a reload, statement at the cursor, error marked, actions open tabs, Esc cancels', {
  timeout: 90_000,
}, async () => {
  await login();
  await page.setViewportSize({ width: 1400, height: 900 });
  // The statement at the cursor runs, not the whole text.
  await runSql('SELECT 1 AS one;\nSELECT 2 AS two;');
  assert.match(await page.locator('.grid-head').innerText(), /two/);
  await page.locator('.cm-line').first().click();
  await page.keyboard.press('Control+Enter');
  await page.locator('.grid-head', { hasText: 'one' }).waitFor();
  assert.equal(await page.locator('.results [role="tab"]').count(), 0, 'one statement ran');
  // Focus stays in the editor after a run.
  assert.match(
    String(await page.evaluate("document.activeElement?.shadowRoot?.activeElement?.className ?? ''")),
    /cm-content/,
  );

  // A syntax error is marked where the parser says.
  await runSql('SELECT id FORM pg.customers');
  await page.locator('.results .error').waitFor();
  await page.locator('.cm-lintRange-error').waitFor();
  assert.match(await page.locator('.cm-lintRange-error').innerText(), /FORM|pg/);
  await shot('15-error-marked-1400x900');

  // Clicking a table opens a new tab; the work in the old one stays.
  await runSql('-- my careful work\nSELECT 42 AS kept');
  const tabsBefore = await page.locator('.editor-tabs [role="tab"]').count();
  await page.locator('.schema button', { hasText: 'customers' }).click();
  await page.getByText('2 rows').waitFor();
  assert.equal(await page.locator('.editor-tabs [role="tab"]').count(), tabsBefore + 1);
  assert.match(
    await page.locator('.cm-content').innerText(),
    /SELECT \* FROM `pg`\.`customers`|SELECT \* FROM pg\.customers/,
  );
  await page.locator('.editor-tabs [role="tab"]', { hasText: 'SELECT 42' }).click();
  assert.match(await page.locator('.cm-content').innerText(), /my careful work[\s\S]*SELECT 42 AS kept/);

  // A knowledge-base template goes into a new tab and is not run.
  await tab('Knowledge bases');
  await page.getByRole('button', { name: /Create \/ insert/ }).click();
  await page.locator('.cm-content', { hasText: 'CREATE KNOWLEDGE_BASE my_kb' }).waitFor();
  assert.equal(await page.locator('.results .running').count(), 0);
  assert.equal(await page.locator('.results .error').count(), 0);

  // Tabs (texts, which one is open) survive a reload and a new login.
  const texts = await page.locator('.editor-tabs [role="tab"]').allTextContents();
  await page.reload();
  await login();
  assert.deepEqual(await page.locator('.editor-tabs [role="tab"]').allTextContents(), texts);
  assert.match(await page.locator('.cm-content').innerText(), /CREATE KNOWLEDGE_BASE my_kb/);

  // Elapsed time while running, and Esc cancels.
  await page.locator('.cm-content').click();
  await page.keyboard.press('Control+A');
  await page.keyboard.press('Delete');
  await page.keyboard.insertText(
    'WITH RECURSIVE t(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM t WHERE n < 5000000) SELECT COUNT(*) FROM t',
  );
  await page.keyboard.press('Control+Enter');
  await page.locator('.elapsed', { hasText: /Running \d+\.\d s/ }).waitFor();
  await page.keyboard.press('Escape');
  await page.locator('.results', { hasText: 'Cancelled' }).waitFor();
  assert.equal(await page.locator('.elapsed').innerText(), '');
});

test('security: a page on another loopback port cannot use the API; secrets stay out of history; logout clears it', {
  timeout: 60_000,
}, async () => {
  // A page served by another local program, on another 127.0.0.1 port.
  const other = createServer((_req, res) => {
    res.writeHead(200, { 'content-type': 'text/html' });
    res.end('<!doctype html><title>other local app</title><p>hello</p>');
  });
  await new Promise<void>((r) => other.listen(0, '127.0.0.1', r));
  const otherPort = (other.address() as AddressInfo).port;
  const foreign = await context.newPage();
  try {
    await foreign.goto(`http://127.0.0.1:${otherPort}/`);
    // As a string: the test's own transpiler would add helpers the page does not have.
    const outcome = await foreign.evaluate(`(async () => {
      const api = ${JSON.stringify(server.url)};
      const tryIt = (path, init) =>
        fetch(api + path, init).then((r) => 'answered ' + r.status, (e) => 'refused: ' + e.name);
      return {
        json: await tryIt('/api/sql/query', {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({ query: 'SELECT 1' }),
        }),
        simple: await tryIt('/api/sql/query', { method: 'POST', body: JSON.stringify({ query: 'SELECT 1' }) }),
        status: await tryIt('/api/status', { method: 'GET' }),
      };
    })()`);
    assert.deepEqual(outcome, {
      json: 'refused: TypeError',
      simple: 'refused: TypeError',
      status: 'refused: TypeError',
    });
  } finally {
    await foreign.close();
    other.close();
  }

  // The console's own origin works; history keeps SQL with the password masked.
  await login();
  await page.setViewportSize({ width: 1400, height: 900 });
  await runSql(
    `CREATE DATABASE leaky WITH ENGINE = 'postgres', PARAMETERS = {"host": "127.0.0.1", "port": 1, "user": "u", "database": "d", "password": "hunter2-very-secret"}`,
  );
  await page.locator('.results .error, .results .ok-result').first().waitFor();
  const stored = String(await page.evaluate('JSON.stringify([{ ...localStorage }, { ...sessionStorage }])'));
  assert.doesNotMatch(stored, /hunter2/);
  const firstKept = String(await page.evaluate("JSON.parse(sessionStorage.getItem('tributary.history'))[0]"));
  assert.match(firstKept, /"password": "\*\*\*"/);
  const historyText = await page.locator('select[aria-label="History"]').innerText();
  assert.doesNotMatch(historyText, /hunter2/);
  await shot('16-history-masked-1400x900');
  await page.getByRole('button', { name: 'Log out' }).click();
  await page.locator('#login-user').waitFor();
  assert.equal(await page.evaluate("sessionStorage.getItem('tributary.history')"), null);
});

test('results at scale: a page of rows, N more, paging to the last of 2,000,000, sort, cell viewer, all rows as CSV', {
  timeout: 180_000,
}, async (t) => {
  await login();
  await page.setViewportSize({ width: 1400, height: 900 });
  const t0 = performance.now();
  await runSql('SELECT id, id * 2 AS twice FROM files.big');
  await page.getByText('2,000,000 rows').waitFor();
  t.diagnostic(`2,000,000 rows streamed, first page kept, in ${Math.round(performance.now() - t0)} ms`);
  assert.match(
    await page.locator('.paging').innerText(),
    /Rows 1–100,000 of 2,000,000: 1,900,000 more rows not on this page/,
  );
  const heap = Number(await page.evaluate('performance.memory ? performance.memory.usedJSHeapSize : 0'));
  t.diagnostic(`page heap after the 2,000,000-row result: ${Math.round(heap / 1e6)} MB`);
  await shot('17-paged-result-1400x900');

  // The last page, and the grid scrolled to its end shows row 2,000,000.
  await page.getByRole('button', { name: 'Last »' }).click();
  await page.locator('.paging', { hasText: 'Rows 1,900,001–2,000,000 of 2,000,000' }).waitFor();
  await page.locator('.grid').evaluate((g) => {
    g.scrollTop = g.scrollHeight;
  });
  const lastRow = page.locator('.grid-rows .grid-row', {
    has: page.locator('.cell.num', { hasText: /^2000000$/ }),
  });
  await lastRow.waitFor();
  assert.match(await lastRow.innerText(), /2000000\s+2000000\s+4000000/);
  const box = await lastRow.boundingBox();
  const grid = await page.locator('.grid').boundingBox();
  assert.ok(box && grid && box.y + box.height <= grid.y + grid.height + 1, 'the last row is in view');
  await shot('18-last-row-1400x900');

  // Every row as CSV, streamed into the download.
  const [download] = await Promise.all([
    page.waitForEvent('download', { timeout: 120_000 }),
    page.getByRole('button', { name: 'Download all rows (CSV)' }).click(),
  ]);
  const csvPath = join(shots, 'all-rows.csv');
  await download.saveAs(csvPath);
  const csv = readFileSync(csvPath, 'utf8');
  const lines = csv.split('\r\n');
  assert.equal(lines[0], 'id,twice');
  assert.equal(lines.length, 2_000_002, 'header, 2,000,000 rows, and the last line end');
  assert.equal(lines[2_000_000], '2000000,4000000');
  rmSync(csvPath);

  // Header-click sort, on the loaded rows, said so.
  await runSql('SELECT country, revenue FROM pg.sales');
  await page.getByRole('button', { name: /revenue/ }).click();
  await page.locator('.sort-note', { hasText: 'on the 4 rows loaded here only' }).waitFor();
  assert.match(await page.locator('.grid-rows .grid-row').first().innerText(), /SE\s+1250/);
  await page.getByRole('button', { name: /revenue/ }).click();
  assert.match(await page.locator('.grid-rows .grid-row').first().innerText(), /DE\s+38000/);
  assert.equal(await page.locator('[role="columnheader"][aria-sort="descending"]').count(), 1);

  // A long JSON value, whole and indented, in the cell viewer.
  await runSql(
    `SELECT '{"name": "Ada", "tags": ["one", "two", "three"], "note": "${'x'.repeat(120)}"}' AS doc`,
  );
  await page.getByRole('button', { name: /Show the whole value/ }).click();
  const viewer = page.locator('dialog.cell-viewer');
  await viewer.waitFor();
  assert.match(await viewer.locator('pre').innerText(), /\{\n {2}"name": "Ada",\n {2}"tags": \[/);
  await shot('19-cell-viewer-1400x900');
  await page.keyboard.press('Escape');
  await viewer.waitFor({ state: 'detached' });
});

test('keyboard tabs, re-upload with replace, and every screen at 1400x900 and 390x844', {
  timeout: 90_000,
}, async () => {
  await login();
  await page.setViewportSize({ width: 1400, height: 900 });
  // Keyboard only: arrow keys move along the section tabs and select them.
  await page.getByRole('tab', { name: 'Query', exact: true }).focus();
  for (const name of ['Sources', 'Files', 'Knowledge bases', 'Query']) {
    await page.keyboard.press('ArrowRight');
    await page.locator(`[role="tab"][aria-selected="true"]`, { hasText: name }).first().waitFor();
    assert.equal(await page.evaluate('document.activeElement.textContent'), name);
  }
  await page.keyboard.press('End');
  assert.equal(await page.evaluate('document.activeElement.textContent'), 'Knowledge bases');
  // The search form's fields have labels.
  assert.equal(await page.getByLabel('Question').count(), 1);

  // Choosing the default source changes what completion offers for unqualified names.
  await tab('Query');
  const complete = async () => {
    await page.locator('.cm-content').click();
    await page.keyboard.press('Control+A');
    await page.keyboard.press('Delete');
    await page.keyboard.insertText('SELECT * FROM cust');
    await page.keyboard.press('Control+Space');
    await page.waitForTimeout(300);
  };
  await complete();
  assert.equal(await page.locator('.cm-tooltip-autocomplete', { hasText: 'customers' }).count(), 0);
  await page.keyboard.press('Escape');
  await page.selectOption('select[aria-label="Default source"]', 'pg');
  await complete();
  await page.locator('.cm-tooltip-autocomplete', { hasText: 'customers' }).waitFor();
  await page.keyboard.press('Escape');
  await page.selectOption('select[aria-label="Default source"]', '');

  // Test on a rest_api source is the passthrough test: an upstream on a loopback address is
  // refused (passthrough.allow_private_networks is off), not reported as "ok".
  await runSql(
    `CREATE DATABASE crm_api WITH ENGINE = 'rest_api', PARAMETERS = {"base_url": "http://127.0.0.1:9/", "bearer_token": "not-a-real-token-0123456789"}`,
  );
  await tab('Sources');
  const apiRow = page.locator('tr', { has: page.locator('td', { hasText: /^crm_api$/ }) });
  await apiRow.getByRole('button', { name: 'Test' }).click();
  await apiRow.locator('.error', { hasText: 'private_address' }).waitFor();
  assert.doesNotMatch(await apiRow.innerText(), /\bok\b/);
  page.once('dialog', (d) => void d.accept());
  await apiRow.getByRole('button', { name: 'Drop' }).click();
  await apiRow.waitFor({ state: 'detached' });

  // Re-uploading a file: the 409 offers to replace the table, and replacing works.
  await tab('Files');
  await page.setInputFiles('#file-pick', {
    name: 'people.csv',
    mimeType: 'text/csv',
    buffer: Buffer.from('name,age\nann,31\nbob,42\ncid,27\ndee,55\n'),
  });
  const replace = page.getByRole('button', { name: 'Replace files.people' });
  await replace.waitFor();
  assert.match(await page.locator('.upload').first().innerText(), /409|file_exists|replace/i);
  await replace.click();
  const row = page.locator('tr', { has: page.locator('td', { hasText: 'files.people' }) });
  await row.locator('td', { hasText: /^4$/ }).waitFor();
  assert.match(await row.innerText(), /csv\s+4\s+2\s/);

  for (const [w, hgt] of [
    [1400, 900],
    [390, 844],
  ] as const) {
    await page.setViewportSize({ width: w, height: hgt });
    for (const name of ['Query', 'Sources', 'Files', 'Knowledge bases']) {
      await tab(name);
      if (name === 'Query') await runSql('SELECT country, revenue, orders FROM pg.sales ORDER BY country');
      await page.waitForTimeout(150);
      await shot(`20-${name.toLowerCase().replace(/ /g, '-')}-${w}x${hgt}`);
    }
    await tab('Query');
    await page.getByRole('button', { name: 'Chart' }).click();
    await page.locator('.chart canvas').waitFor();
    await shot(`21-chart-${w}x${hgt}`);
  }
  await page.getByRole('button', { name: 'Log out' }).click();
  await page.locator('#login-user').waitFor();
  await shot('22-login-390x844');
  await page.setViewportSize({ width: 1400, height: 900 });
  await shot('22-login-1400x900');
});

test('opened under a name the API does not trust, the page says which setting to set', {
  timeout: 60_000,
}, async () => {
  // DNS-rebinding protection off and only 127.0.0.1 allowed: http://localhost:PORT/ loads,
  // but /api trusts the server's own origin only under an allowed host name.
  const other = await startTestServer({
    TRIBUTARY_MCP_DNS_REBINDING_PROTECTION: 'false',
    TRIBUTARY_MCP_ALLOWED_HOSTS: '127.0.0.1',
  });
  const p = await context.newPage();
  const named = other.url.replace('127.0.0.1', 'localhost');
  try {
    await p.goto(`${named}/`);
    const hint = p.locator('.origin-hint');
    await hint.waitFor();
    const text = await hint.innerText();
    assert.match(text, new RegExp(`opened as ${named}`));
    assert.match(text, new RegExp(`TRIBUTARY_MCP_ALLOW_ORIGINS=${named}`));
    assert.match(text, /api\.mcp\.cors\.allow_origins/);
    await p.setViewportSize({ width: 1400, height: 900 });
    await p.screenshot({ path: join(shots, '23-origin-hint-1400x900.png') });
    // Under the address it trusts, the same server works.
    await p.goto(`${other.url}/`);
    await p.locator('.cm-content').waitFor();
  } finally {
    await p.close();
    await other.stop();
  }
});
