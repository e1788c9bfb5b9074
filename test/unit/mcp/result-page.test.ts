import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { HandlePage } from '../../../src/mcp/result-handles.js';
import { pageAnswer, parsePageRequest } from '../../../src/mcp/result-page.js';
import { NOTE_RESERVE_BYTES, truncationFields, withTruncation } from '../../../src/mcp/truncation.js';
import { CutAnswer } from '../../../src/sql/cut-answer.js';

test('page statements: LIMIT n OFFSET m, LIMIT m, n, LIMIT n, none; anything else about a handle is 1064', () => {
  const id = 'r_abcDEF012_-xyz9';
  assert.deepEqual(parsePageRequest(`SELECT * FROM result('${id}') LIMIT 100 OFFSET 200`), {
    id,
    offset: 200,
    limit: 100,
  });
  assert.deepEqual(parsePageRequest(` select * from RESULT ( "${id}" ) limit 20, 10 ;`), {
    id,
    offset: 20,
    limit: 10,
  });
  assert.deepEqual(parsePageRequest(`SELECT * FROM result('${id}') LIMIT 5`), { id, offset: 0, limit: 5 });
  assert.deepEqual(parsePageRequest(`SELECT * FROM result('${id}')`), { id, offset: 0, limit: null });
  assert.equal(parsePageRequest('SELECT * FROM pg.results LIMIT 5'), null);
  assert.equal(parsePageRequest("SELECT result('x') FROM t"), null);
  for (const bad of [
    `SELECT n FROM result('${id}')`,
    `SELECT * FROM result('${id}') WHERE n > 3`,
    `SELECT * FROM result('${id}') ORDER BY n`,
    `SELECT * FROM result('${id}') LIMIT 5; DROP TABLE t`,
  ]) {
    const r = parsePageRequest(bad);
    assert.ok(r && 'type' in r && r.error_code === 1064, bad);
  }
});

function handle(n: number, complete = true): HandlePage {
  return {
    view: { id: 'r_0123456789abcdef', held: n, complete, moreThan: complete ? 0 : n },
    column_names: ['n'],
    rows: Array.from({ length: n }, (_, i) => JSON.stringify([i])),
  };
}

test('a page that gives all it was asked for carries no note; a cut one says where to go on', () => {
  assert.deepEqual(pageAnswer(handle(50), { id: 'x', offset: 10, limit: 3 }, 1000, 1 << 20), {
    type: 'table',
    column_names: ['n'],
    data: [[10], [11], [12]],
  });
  // The last page: fewer rows than asked, none left.
  assert.deepEqual(pageAnswer(handle(50), { id: 'x', offset: 48, limit: 10 }, 1000, 1 << 20), {
    type: 'table',
    column_names: ['n'],
    data: [[48], [49]],
  });
  const cut = pageAnswer(handle(50), { id: 'x', offset: 10, limit: 30 }, 5, 1 << 20);
  assert.deepEqual(cut, {
    type: 'table',
    column_names: ['n'],
    truncated: true,
    rows_returned: 5,
    rows_available: 50,
    handle: 'r_0123456789abcdef',
    next: "SELECT * FROM result('r_0123456789abcdef') LIMIT 5 OFFSET 15",
    hint: (cut as unknown as { hint: string }).hint,
    data: [[10], [11], [12], [13], [14]],
  });
  assert.deepEqual(Object.keys(cut).at(-1), 'data', 'the note comes before the rows');
});

test('a page of a handle that holds only part of the result says more_than at its end', () => {
  const r = pageAnswer(
    handle(20, false),
    { id: 'x', offset: 15, limit: 100 },
    1000,
    1 << 20,
  ) as unknown as Record<string, unknown>;
  assert.equal(r.truncated, true);
  assert.equal(r.more_than, 20);
  assert.equal(r.next, undefined);
  assert.match(String(r.hint), /no more can be paged/);
});

test('the byte budget holds for a first answer and a page, note included', () => {
  const budget = 2000;
  const rows = Array.from({ length: 500 }, (_, i) => [i, `name ${i} é`]);
  const answer = new CutAnswer(['n', 'name'], 10_000, budget - NOTE_RESERVE_BYTES);
  answer.take(rows);
  assert.equal(answer.truncated, true);
  const first = withTruncation(
    { column_names: ['n', 'name'], data: answer.data },
    truncationFields(0, answer.data.length, {
      id: 'r_0123456789abcdef',
      held: 9_007_199_254_740_991,
      complete: true,
      moreThan: 0,
    }),
  );
  const size = Buffer.byteLength(JSON.stringify(first));
  assert.ok(size <= budget && size > budget - 200, `${size} bytes`);
  const page = pageAnswer(
    {
      view: { id: 'r_0123456789abcdef', held: 500, complete: true, moreThan: 0 },
      column_names: ['n', 'name'],
      rows: rows.map((r) => JSON.stringify(r)),
    },
    { id: 'x', offset: 7, limit: null },
    10_000,
    budget,
  );
  const pageSize = Buffer.byteLength(JSON.stringify(page));
  assert.ok(pageSize <= budget && pageSize > budget - 200, `${pageSize} bytes`);
});

test('a row larger than the budget alone is an error, not an empty page', () => {
  const big: HandlePage = {
    view: { id: 'r_0123456789abcdef', held: 1, complete: true, moreThan: 0 },
    column_names: ['s'],
    rows: [JSON.stringify(['x'.repeat(5000)])],
  };
  const r = pageAnswer(big, { id: 'x', offset: 0, limit: 1 }, 100, 2000);
  assert.equal(r.type === 'error' && r.error_code, 1153);
});
