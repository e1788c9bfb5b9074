/**
 * loadBatches gathers rows of any batch size into whole data chunks and flushes once: the
 * table must still hold every row, in the order they came (two-phase grouping reads rowid
 * as "first seen"), with NULLs and typed values intact.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { DuckDBInstance } from '@duckdb/node-api';
import type { FieldInfo, Row } from '../../../../src/core/types.js';
import { loadBatches } from '../../../../src/sql/execute/local-load.js';

const FIELDS: FieldInfo[] = [
  { name: 'id', type: 'BIGINT' },
  { name: 'label', type: 'VARCHAR' },
  { name: 'amount', type: 'DECIMAL' },
];

async function* batchesOf(sizes: number[]): AsyncGenerator<Row[]> {
  let id = 0;
  for (const n of sizes) {
    const rows: Row[] = [];
    for (let i = 0; i < n; i++, id++)
      rows.push([id, id % 7 === 0 ? null : `row-${id}`, id % 5 === 0 ? null : `${id}.25`]);
    yield rows;
  }
}

test('batches of odd sizes land whole and in order, across chunk boundaries', async () => {
  const db = await DuckDBInstance.create(':memory:');
  const conn = await db.connect();
  try {
    await conn.run('CREATE SCHEMA s');
    const sizes = [1, 2047, 3000, 0, 5, 4096, 2048, 999];
    const total = sizes.reduce((a, b) => a + b, 0);
    const seen: number[] = [];
    const n = await loadBatches(conn, 's', 't', FIELDS, batchesOf(sizes), (c) => seen.push(c));
    assert.equal(n, total);
    assert.equal(seen.at(-1), total);
    const r = await conn.runAndReadAll('SELECT id, label, CAST(amount AS VARCHAR) FROM s.t ORDER BY rowid');
    const rows = r.getRowsJS();
    assert.equal(rows.length, total);
    rows.forEach((row, i) => {
      assert.equal(Number(row[0]), i, `row ${i} out of order`);
      assert.equal(row[1], i % 7 === 0 ? null : `row-${i}`);
      assert.equal(row[2], i % 5 === 0 ? null : `${i}.25`);
    });
  } finally {
    conn.closeSync();
  }
});

test('no rows at all still makes the (empty) table', async () => {
  const db = await DuckDBInstance.create(':memory:');
  const conn = await db.connect();
  try {
    await conn.run('CREATE SCHEMA s');
    assert.equal(await loadBatches(conn, 's', 'e', FIELDS, batchesOf([])), 0);
    const r = await conn.runAndReadAll('SELECT count(*) FROM s.e');
    assert.equal(Number(r.getRowsJS()[0][0]), 0);
  } finally {
    conn.closeSync();
  }
});
