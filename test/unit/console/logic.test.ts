/** The console's browser-side logic that needs no DOM: splitting, export, charts, completion, plans, forms. */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import {
  axisSize,
  decimalsFor,
  groupSlot,
  rightAxisSeries,
  tickLabels,
  zeroBasedRange,
} from '../../../src/console/chart-axes.js';
import { chartNumber, chooseChart, inferKinds } from '../../../src/console/column-kinds.js';
import { candidates, schemaTree } from '../../../src/console/completion.js';
import { loadTabs, saveTabs, TABS_KEY } from '../../../src/console/editor-tabs.js';
import { createSourceSql, paramValue, parseEngineParams } from '../../../src/console/engine-params.js';
import { errorSpan } from '../../../src/console/error-position.js';
import { toDelimited } from '../../../src/console/export.js';
import { firstRowAt, MAX_SCROLL_PX, scrollHeightFor } from '../../../src/console/grid-scroll.js';
import { layoutPlan, planSteps } from '../../../src/console/plan.js';
import { RowScanner, type StreamedTable } from '../../../src/console/row-stream.js';
import { maskSecrets } from '../../../src/console/secrets.js';
import { quoteIdent, quoteString, tableNameOf } from '../../../src/console/sql-text.js';
import { isExplain, splitStatements } from '../../../src/console/statements.js';

describe('splitStatements', () => {
  test('splits on top-level semicolons only', () => {
    const text = 'SELECT \';\' AS a; SELECT `x;y` FROM t -- c;\n; /* ; */ SELECT "a\\";" ;\n# only;\n';
    assert.deepEqual(
      splitStatements(text).map((s) => s.text),
      ["SELECT ';' AS a", 'SELECT `x;y` FROM t -- c;', '/* ; */ SELECT "a\\";"'],
    );
  });
  test('offsets point into the text; blank and comment-only parts are dropped', () => {
    const text = '  SELECT 1 ;; -- nothing\n ;SELECT 2';
    const parts = splitStatements(text);
    assert.deepEqual(
      parts.map((p) => text.slice(p.from, p.to)),
      ['SELECT 1', 'SELECT 2'],
    );
  });
  test('doubled quotes and an unterminated string', () => {
    assert.deepEqual(
      splitStatements("SELECT 'it''s; fine'; SELECT 'open;").map((s) => s.text),
      ["SELECT 'it''s; fine'", "SELECT 'open;"],
    );
  });
  test('--x is not a comment (MySQL needs a space after --)', () => {
    assert.deepEqual(
      splitStatements('SELECT 1--1; SELECT 2').map((s) => s.text),
      ['SELECT 1--1', 'SELECT 2'],
    );
  });
  test('isExplain', () => {
    assert.equal(isExplain('  explain SELECT 1'), true);
    assert.equal(isExplain('/* x */ EXPLAIN SELECT 1'), true);
    assert.equal(isExplain('SELECT 1'), false);
  });
});

describe('toDelimited', () => {
  const cols = ['a', 'b'];
  const rows = [
    [1, null],
    ['', 'x,"y"'],
    ['line\nbreak', { k: 1 }],
    ['tab\there', ' pad '],
  ];
  test('CSV: RFC 4180 quoting; NULL empty, empty string quoted', () => {
    assert.equal(
      toDelimited(cols, rows, 'csv'),
      'a,b\r\n1,\r\n"","x,""y"""\r\n"line\nbreak","{""k"":1}"\r\ntab\there," pad "\r\n',
    );
  });
  test('TSV: NULL as \\N, controls escaped', () => {
    assert.equal(
      toDelimited(cols, rows, 'tsv'),
      'a\tb\n1\t\\N\n\tx,"y"\nline\\nbreak\t{"k":1}\ntab\\there\t pad \n',
    );
  });
});

describe('chart choice', () => {
  test('kinds from values: numbers (also as text), dates, text, all-NULL', () => {
    const kinds = inferKinds(
      ['n', 'big', 'd', 's', 'e'],
      [
        [1, '12345678901234567890', '2024-01-02', 'x', null],
        [2.5, '-1.50', '2024-01-03 10:00:00', 'y', null],
      ],
    );
    assert.deepEqual(kinds, ['number', 'number', 'temporal', 'text', 'empty']);
  });
  test('types win over values when the result has them', () => {
    assert.deepEqual(inferKinds(['a', 'b'], [['1', '2']], ['VARCHAR(10)', 'DATETIME']), ['text', 'temporal']);
  });
  test('time + numbers → line; text + numbers → bar; numbers only → scatter; none → a reason', () => {
    assert.deepEqual(chooseChart(['temporal', 'number', 'text']), { type: 'line', x: 0, ys: [1] });
    assert.deepEqual(chooseChart(['text', 'number', 'number']), { type: 'bar', x: 0, ys: [1, 2] });
    assert.deepEqual(chooseChart(['number', 'number', 'number']), { type: 'scatter', x: 0, ys: [1, 2] });
    assert.deepEqual(chooseChart(['number']), { type: 'bar', x: -1, ys: [0] });
    assert.ok('reason' in chooseChart(['text', 'temporal']));
  });
  test('chartNumber', () => {
    assert.equal(chartNumber('2024-01-01 00:00:00', 'temporal'), Date.parse('2024-01-01T00:00:00') / 1000);
    assert.equal(chartNumber('12.5', 'number'), 12.5);
    assert.equal(chartNumber('x', 'number'), null);
    assert.equal(chartNumber(null, 'number'), null);
  });
});

describe('completion', () => {
  const tree = schemaTree(
    ['files', 'pg', 'empty'],
    [
      ['pg', 'orders', 'id'],
      ['pg', 'orders', 'total'],
      ['files', 'people', 'name'],
    ],
    [
      ['pg', 'orders'],
      ['pg', 'views_only'],
    ],
  );
  test('every source, its tables and columns in order', () => {
    assert.deepEqual(tree, {
      files: { people: ['name'] },
      pg: { orders: ['id', 'total'], views_only: [] },
      empty: {},
    });
  });
  test('candidates by dotted prefix, any case', () => {
    assert.deepEqual(
      candidates(tree, []).map((c) => c.label),
      ['files', 'pg', 'empty'],
    );
    assert.deepEqual(
      candidates(tree, ['PG']).map((c) => [c.label, c.type]),
      [
        ['orders', 'table'],
        ['views_only', 'table'],
      ],
    );
    assert.deepEqual(
      candidates(tree, ['pg', 'Orders']).map((c) => c.label),
      ['id', 'total'],
    );
    assert.deepEqual(
      candidates(tree, ['people']).map((c) => c.label),
      ['name'],
    );
    assert.deepEqual(candidates(tree, ['nosuch', 'x']), []);
  });
});

describe('plan layout', () => {
  const cols = ['step', 'source', 'operation', 'query'];
  test('fragments grouped by source, then the local steps', () => {
    const steps = planSteps(cols, [
      [3, 'local', 'duckdb', 'SELECT ... JOIN ...'],
      [1, 'pg', 'fragment -> __f0', 'SELECT id FROM customers'],
      [2, 'my', 'fragment -> __f1', 'SELECT total FROM orders'],
    ]);
    assert.ok(steps);
    const plan = layoutPlan(steps);
    assert.deepEqual(
      plan.sources.map((g) => [g.source, g.steps.map((s) => s.step)]),
      [
        ['pg', [1]],
        ['my', [2]],
      ],
    );
    assert.deepEqual(
      plan.local.map((s) => s.step),
      [3],
    );
    assert.equal(plan.pushedDown, false);
  });
  test('one source running it all is a pushdown; a result without the columns is no plan', () => {
    const steps = planSteps(cols, [[1, 'files', 'pushdown', 'SELECT 1']]);
    assert.equal(layoutPlan(steps ?? []).pushedDown, true);
    assert.equal(planSteps(['a'], [[1]]), null);
  });
});

describe('source form', () => {
  const text =
    'host: server host name or address (required); port: server port (default 3306); password: password (secret); database: database name (required); the default schema; ssl: TLS: false (default), true (verified), or {"ca","cert"}';
  const params = parseEngineParams(text);
  test('SHOW ENGINES parameters: names, required, secret, defaults; a ; inside a doc stays', () => {
    assert.deepEqual(
      params.map((p) => [p.name, p.required, p.secret, p.defaultText]),
      [
        ['host', true, false, null],
        ['port', false, false, '3306'],
        ['password', false, true, null],
        ['database', true, false, null],
        ['ssl', false, false, null],
      ],
    );
    assert.match(params[3].doc, /the default schema/);
    const rest = parseEngineParams(
      'bearer_token: Token sent as Authorization: Bearer <token> (secret, required); default_headers: Object of headers sent on every call (default {}) (secret)',
    );
    assert.deepEqual(
      rest.map((p) => [p.name, p.required, p.secret, p.defaultText]),
      [
        ['bearer_token', true, true, null],
        ['default_headers', false, true, '{}'],
      ],
    );
    assert.deepEqual(paramValue(rest[1], '{"x-a":"b"}'), { 'x-a': 'b' });
    assert.deepEqual(parseEngineParams(''), []);
  });
  test('CREATE DATABASE from values: numbers where the default is one, JSON objects, secrets as typed', () => {
    const sql = createSourceSql('my db', 'mariadb', params, {
      host: ' 127.0.0.1 ',
      port: '3307',
      password: ' p{w ',
      database: 'd',
      ssl: '{"ca":"x"}',
    });
    assert.equal(
      sql,
      'CREATE DATABASE `my db` WITH ENGINE = \'mariadb\', PARAMETERS = {"host":"127.0.0.1","port":3307,"password":" p{w ","database":"d","ssl":{"ca":"x"}}',
    );
    assert.throws(() => createSourceSql('x', 'mariadb', params, { database: 'd' }), /'host' is required/);
    assert.throws(
      () => createSourceSql('x', 'mariadb', params, { host: 'h', database: 'd', ssl: '{bad' }),
      /'ssl': not valid JSON/,
    );
    assert.throws(() => createSourceSql(' ', 'mariadb', params, {}), /needs a name/);
  });
  test('quoting and table names of files', () => {
    assert.equal(quoteIdent('a`b'), '`a``b`');
    assert.equal(quoteString("it's \\"), "'it''s \\\\'");
    assert.equal(tableNameOf('Sales 2024 (final).csv'), 'Sales_2024_final');
    assert.equal(tableNameOf('2024.csv'), 't_2024');
  });
});

describe('chart axes', () => {
  // Widths as a 12 px sans-serif draws them: about 6.7 px a digit, 3 px a comma.
  const measure = (t: string) => [...t].reduce((w, c) => w + (c === ',' || c === '.' ? 3 : 6.7), 0);
  test('tick labels of a revenue range keep every digit, grouped', () => {
    const splits = [0, 5000, 10000, 15000, 20000, 25000, 30000, 35000, 40000];
    assert.deepEqual(tickLabels(splits, 'en-US'), [
      '0',
      '5,000',
      '10,000',
      '15,000',
      '20,000',
      '25,000',
      '30,000',
      '35,000',
      '40,000',
    ]);
    assert.deepEqual(tickLabels([0, 0.25, 0.5], 'en-US'), ['0.00', '0.25', '0.50']);
    assert.equal(decimalsFor(0.1), 1);
    assert.equal(decimalsFor(5000), 0);
    assert.equal(decimalsFor(0.30000000000000004 - 0.1), 1);
  });
  test('the axis is as wide as its widest label plus tick and gap (uPlot fixes 50 px)', () => {
    const labels = tickLabels([0, 250000, 500000, 750000, 1000000, 1250000], 'en-US');
    const size = axisSize(labels, measure, 6, 5);
    assert.ok(size >= measure('1,250,000') + 11, `${size}`);
    assert.ok(size > 50);
    assert.ok(axisSize(['0', '5'], measure, 6, 5) < 30);
  });
  test('bars and areas start at zero, also for negative values', () => {
    assert.equal(zeroBasedRange(1250, 38000)[0], 0);
    assert.ok(zeroBasedRange(1250, 38000)[1] > 38000);
    const [lo, hi] = zeroBasedRange(-20, -5);
    assert.ok(lo < -20);
    assert.equal(hi, 0);
    assert.deepEqual(zeroBasedRange(0, 0), [0, 1]);
  });
  test('a series far smaller than the largest goes on the right axis', () => {
    const revenue = [38000, 10000, 24500, 1250];
    const orders = [12, 30, 7, 21];
    assert.deepEqual([...rightAxisSeries([revenue, orders])], [1]);
    assert.deepEqual(
      [
        ...rightAxisSeries([
          [10, 20],
          [5, null],
        ]),
      ],
      [],
    );
    assert.deepEqual([...rightAxisSeries([[0], [0]])], []);
  });
  test('series in a group sit side by side within the category', () => {
    const slots = [0, 1, 2].map((k) => groupSlot(k, 3));
    assert.ok(Math.abs(slots[0]!.offset + 0.4) < 1e-9);
    for (let k = 1; k < 3; k++)
      assert.ok(Math.abs(slots[k]!.offset - (slots[k - 1]!.offset + slots[k - 1]!.width)) < 1e-9);
    assert.ok(slots[2]!.offset + slots[2]!.width <= 0.4 + 1e-9);
  });
});

describe('secrets kept out of the browser storage', () => {
  test('secret parameters, IDENTIFIED BY and URL passwords are masked', () => {
    const sql =
      'CREATE DATABASE pg WITH ENGINE = \'postgres\', PARAMETERS = {"host": "127.0.0.1", "password": "hunter2", "api_key": "k-123", "token": "t,x"};';
    const m = maskSecrets(sql);
    assert.doesNotMatch(m, /hunter2|k-123|t,x/);
    assert.match(m, /"password": "\*\*\*"/);
    assert.match(m, /"host": "127\.0\.0\.1"/);
    assert.equal(maskSecrets("CREATE USER a IDENTIFIED BY 'pw'"), "CREATE USER a IDENTIFIED BY '***'");
    assert.equal(maskSecrets("x = 'postgres://u:pw@h/db'"), "x = 'postgres://u:***@h/db'");
    assert.equal(maskSecrets('SELECT password_hint FROM t'), 'SELECT password_hint FROM t');
    assert.equal(maskSecrets("secret_key = 'abc'"), "secret_key = '***'");
  });
  test('saved editor tabs are masked; unreadable storage starts one tab', () => {
    const store = new Map<string, string>();
    const storage = {
      getItem: (k: string) => store.get(k) ?? null,
      setItem: (k: string, v: string) => void store.set(k, v),
    };
    saveTabs(storage, { active: 'a', tabs: [{ id: 'a', text: '{"password": "hunter2"}', cursor: 5 }] });
    assert.doesNotMatch(store.get(TABS_KEY)!, /hunter2/);
    assert.equal(loadTabs(storage, 'x').tabs[0]!.text, '{"password": "***"}');
    store.set(TABS_KEY, '{bad');
    assert.equal(loadTabs(storage, 'SHOW DATABASES;').tabs[0]!.text, 'SHOW DATABASES;');
  });
});

describe('error position from the server message', () => {
  test('parser offset, line/column and near-text', () => {
    const s = 'SELECT id FORM pg.customers';
    assert.deepEqual(
      errorSpan(s, "You have an error in your SQL syntax near 'pg.customers' at position 15"),
      { from: 15, to: 27 },
    );
    assert.deepEqual(errorSpan('SELECT 1\nFROM x y z', 'syntax error at line 2 column 8'), {
      from: 16,
      to: 17,
    });
    assert.deepEqual(errorSpan(s, "check the manual near 'FORM pg.customers' at line 1"), {
      from: 10,
      to: 14,
    });
    assert.equal(errorSpan(s, 'Unknown database'), null);
  });
});

describe('RowScanner: a streamed table read row by row', () => {
  const body =
    '{"type":"table","column_names":["a","b"],"data":[[1,"x]"],[2,"q\\"[{"],[3,{"k":[1,2]}],[4,null]],"error":{"type":"error","error_code":1317,"error_message":"cut"}}';
  test('every split of the text gives the same rows, window and total', () => {
    for (let cut = 1; cut < body.length; cut += 3) {
      const s = new RowScanner({ from: 1, count: 2 });
      s.push(body.slice(0, cut));
      s.push(body.slice(cut));
      const r = s.end() as StreamedTable;
      assert.deepEqual(
        r.data,
        [
          [2, 'q"[{'],
          [3, { k: [1, 2] }],
        ],
        `cut at ${cut}`,
      );
      assert.equal(r.total, 4);
      assert.equal(r.offset, 1);
      assert.equal(r.error?.error_code, 1317);
    }
  });
  test('onRows sees every row; other answers are parsed whole', () => {
    const seen: unknown[][] = [];
    const s = new RowScanner({ from: 0, count: 0, keep: false, onRows: (rows) => seen.push(...rows) });
    for (const ch of body) s.push(ch);
    assert.equal(seen.length, 4);
    assert.equal((s.end() as StreamedTable).data.length, 0);
    const ok = new RowScanner({ from: 0, count: 10 });
    ok.push('{"type":"ok","affected_rows":3}');
    assert.deepEqual(ok.end(), { type: 'ok', affected_rows: 3 });
    const empty = new RowScanner({ from: 0, count: 10 });
    empty.push('{"type":"table","column_names":["a"],"data":[]}');
    assert.deepEqual((empty.end() as StreamedTable).data, []);
  });
});

describe('grid scrolling past the browser height limit', () => {
  test('a small grid scrolls by rows; a huge one maps the scroll range onto every row', () => {
    assert.equal(scrollHeightFor(1000, 26), 26000);
    assert.equal(firstRowAt(2600, 26000 - 500, 1000, 18, 26), 100);
    const rows = 2_000_000;
    const h = scrollHeightFor(rows, 26);
    assert.equal(h, MAX_SCROLL_PX);
    const max = h - 600;
    assert.equal(firstRowAt(max, max, rows, 21, 26), rows - 21, 'the bottom shows the last rows');
    assert.equal(firstRowAt(0, max, rows, 21, 26), 0);
    const mid = firstRowAt(max / 2, max, rows, 21, 26);
    assert.ok(Math.abs(mid - rows / 2) < 20, `${mid}`);
  });
});
