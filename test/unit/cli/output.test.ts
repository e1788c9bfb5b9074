import assert from 'node:assert/strict';
import { PassThrough } from 'node:stream';
import { describe, test } from 'node:test';
import { splitRows } from '../../../src/cli/json-rows.js';
import { type Answer, type RowsAnswer, writeAnswer } from '../../../src/cli/output.js';

function rows(n: number, batch = 1000): RowsAnswer & { cancelled: boolean } {
  const a = {
    type: 'rows' as const,
    columns: ['id', 'name'],
    cancelled: false,
    batches: (async function* () {
      for (let i = 0; i < n; i += batch) {
        const b: unknown[][] = [];
        for (let j = i; j < Math.min(n, i + batch); j++) b.push([j, `n${j}`]);
        yield b;
      }
    })(),
    cancel: async () => {
      a.cancelled = true;
    },
  };
  return a;
}

async function print(a: Answer, format: 'table' | 'json' | 'csv', maxRows?: number): Promise<string> {
  const out = new PassThrough();
  const parts: Buffer[] = [];
  out.on('data', (d: Buffer) => parts.push(d));
  await writeAnswer(out, a, format, { maxRows });
  return Buffer.concat(parts).toString('utf8');
}

describe('CLI output', () => {
  test('an ok answer shows affected rows, and the row counts of an INSERT into a knowledge base', async () => {
    assert.equal(await print({ type: 'ok', affected_rows: 2 }, 'table'), 'OK, 2 row(s) affected\n');
    const kb = { type: 'ok' as const, affected_rows: 3, inserted: 1, updated: 2, unchanged: 0, failed: 1 };
    assert.equal(
      await print(kb, 'table'),
      'OK, 3 row(s) affected (1 inserted, 2 updated, 0 unchanged, 1 failed)\n',
    );
    assert.deepEqual(JSON.parse(await print(kb, 'json')), kb);
  });

  test('a table shows the first rows and counts the rest', async () => {
    const a = rows(1_000_000);
    const text = await print(a, 'table', 5);
    const lines = text.trimEnd().split('\n');
    assert.equal(lines.filter((l) => l.startsWith('| ')).length, 6);
    assert.match(lines.at(-1)!, /^… (at least )?\d+ more rows \(use --json, --csv or LIMIT\)$/);
    assert.equal(a.cancelled, true);
    const small = await print(rows(3), 'table');
    assert.match(small, /3 rows\n$/);
    const exact = await print(rows(12, 5), 'table', 10);
    assert.match(exact, /… 2 more rows/);
  });

  test('--json is the result object on one line, every row', async () => {
    const text = await print(rows(2500), 'json');
    assert.equal(text.split('\n').length, 2);
    const r = JSON.parse(text);
    assert.equal(r.type, 'table');
    assert.deepEqual(r.column_names, ['id', 'name']);
    assert.equal(r.data.length, 2500);
    assert.deepEqual(r.data[2499], [2499, 'n2499']);
  });

  test('--csv quotes per RFC 4180; NULL is empty, the empty string quoted', async () => {
    const a: RowsAnswer = {
      type: 'rows',
      columns: ['a', 'b,c'],
      batches: (async function* () {
        yield [
          [null, ''],
          ['say "hi"', 'two\nlines'],
          [{ k: 1 }, 3.5],
        ];
      })(),
      cancel: async () => {},
    };
    assert.equal(await print(a, 'csv'), 'a,"b,c"\r\n,""\r\n"say ""hi""","two\nlines"\r\n"{""k"":1}",3.5\r\n');
  });

  test('writes wait for a slow reader instead of buffering everything', async () => {
    const out = new PassThrough({ highWaterMark: 1024 });
    const done = writeAnswer(out, rows(200_000), 'csv');
    await new Promise((r) => setTimeout(r, 50));
    // Nobody reads: only about a buffer's worth was written.
    assert.ok(out.writableLength < 200_000, String(out.writableLength));
    out.resume();
    await done;
  });

  test("a server's streamed answer is read row by row, whatever the chunking", async () => {
    const body = JSON.stringify({
      type: 'table',
      column_names: ['a', 'b'],
      data: [
        [1, 'x]},"['],
        [null, { j: [1, { k: '\\"' }] }],
        [2.5, 'é'],
      ],
    });
    const bytes = Buffer.from(body);
    for (const size of [1, 3, 7, bytes.length]) {
      const chunks: Uint8Array[] = [];
      for (let i = 0; i < bytes.length; i += size) chunks.push(bytes.subarray(i, i + size));
      let head: unknown;
      const got: unknown[][] = [];
      for await (const b of splitRows(
        (async function* () {
          yield* chunks;
        })(),
        (h) => {
          head = h;
        },
      ))
        got.push(...b);
      assert.deepEqual(head, { type: 'table', columns: ['a', 'b'] });
      assert.deepEqual(got, JSON.parse(body).data, `chunk size ${size}`);
    }
    let whole: unknown;
    for await (const _ of splitRows(
      (async function* () {
        yield '{"type":"error","error_code":1064,';
        yield '"error_message":"x"}';
      })(),
      (h) => {
        whole = h;
      },
    ));
    assert.deepEqual(whole, {
      type: 'whole',
      value: { type: 'error', error_code: 1064, error_message: 'x' },
    });
  });
});
