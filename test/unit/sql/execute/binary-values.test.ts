/** Strings written into binary columns become bytes (hex literals) for the non-MySQL targets. */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { ColumnInfo } from '../../../../src/core/types.js';
import { compile } from '../../../../src/sql/dialects/index.js';
import { bindBinaryColumns } from '../../../../src/sql/execute/binary-values.js';
import { parseStatement } from '../../../../src/sql/parse/index.js';

const COLS: ColumnInfo[] = [
  { name: 'id', type: 'INT', nativeType: 'integer', nullable: false },
  { name: 'v', type: 'BLOB', nativeType: 'bytea', nullable: true },
  { name: 't', type: 'TEXT', nativeType: 'text', nullable: true },
];

async function bound(sql: string, cols = COLS): Promise<{ text: string; asked: number }> {
  const s = parseStatement(sql, () => false);
  assert.equal(s.kind, 'sql');
  const ast = s.kind === 'sql' ? s.ast : null;
  let asked = 0;
  await bindBinaryColumns(ast!, async () => {
    asked++;
    return cols;
  });
  return { text: compile(ast!, 'postgres'), asked };
}

test('INSERT ... VALUES: strings into a bytea column are bytes, into text stay text', async () => {
  const r = await bound(String.raw`INSERT INTO b (id, v, t) VALUES (1, 'a\\b', 'a\\b'), (2, '\\x41', 'é')`);
  assert.equal(
    r.text,
    String.raw`INSERT INTO "b" ("id", "v", "t") VALUES (1, '\x615c62'::bytea, 'a\b'), (2, '\x5c783431'::bytea, 'é')`,
  );
  // Without a column list, positions name the table's columns.
  const all = await bound(`INSERT INTO b VALUES (1, 'é', 'x')`);
  assert.equal(all.text, String.raw`INSERT INTO "b" VALUES (1, '\xc3a9'::bytea, 'x')`);
});

test('UPDATE ... SET: a string into a binary column is bytes', async () => {
  const r = await bound(`UPDATE b SET v = 'ab', t = 'ab' WHERE id = 1`);
  assert.equal(r.text, String.raw`UPDATE "b" SET "v" = '\x6162'::bytea, "t" = 'ab' WHERE "id" = 1`);
});

test('columns are looked up only when a string is written', async () => {
  assert.equal((await bound('INSERT INTO b (id) VALUES (1)')).asked, 0);
  assert.equal((await bound("INSERT INTO b (id, v) VALUES (1, X'00')")).asked, 0);
  const failing = await (async () => {
    const s = parseStatement("INSERT INTO b (v) VALUES ('x')", () => false);
    const ast = s.kind === 'sql' ? s.ast : null;
    await bindBinaryColumns(ast!, async () => {
      throw new Error('no such table');
    });
    return compile(ast!, 'postgres');
  })();
  assert.equal(failing, `INSERT INTO "b" ("v") VALUES ('x')`);
});
