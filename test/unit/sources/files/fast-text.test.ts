import assert from 'node:assert/strict';
import { test } from 'node:test';
import { DuckDBInstance } from '@duckdb/node-api';
import { FAST_TEXT_MACROS } from '../../../../src/sources/files/fast-text.js';

const ACCENTED = 'àáâãäåçèéêëìíîïñòóôõöùúûüýÿšžß';
const BASE = 'aaaaaaceeeeiiiinooooouuuuyyszs';

test('the translate and rtrim shortcuts answer exactly as DuckDB’s own functions', async () => {
  const db = await DuckDBInstance.create(':memory:');
  const conn = await db.connect();
  try {
    for (const m of FAST_TEXT_MACROS) await conn.run(m);
    const inputs = [
      "'plain'",
      "'Crème Brûlée'",
      "'ZÜRICH  '",
      "'trailing '",
      "'tab\t'",
      "'nbsp' || chr(160)",
      "'ideographic' || chr(12288)",
      "'ß'",
      "''",
      "' '",
      'NULL',
      "'日本語 '",
      '42',
    ];
    const calls = (s: string) => [
      [`translate(${s}, '${ACCENTED}', '${BASE}')`, `system.main.translate(${s}, '${ACCENTED}', '${BASE}')`],
      [`translate(${s}, 'ae', 'xy')`, `system.main.translate(${s}, 'ae', 'xy')`],
      [`translate(${s}, 'üa', 'uq')`, `system.main.translate(${s}, 'üa', 'uq')`],
      [`rtrim(${s})`, `system.main.rtrim(${s})`],
      [`rtrim(${s}, 'e ')`, `system.main.rtrim(${s}, 'e ')`],
      [
        `translate(lower(rtrim(${s})), '${ACCENTED}', '${BASE}')`,
        `system.main.translate(lower(system.main.rtrim(${s})), '${ACCENTED}', '${BASE}')`,
      ],
    ];
    const outcome = async (expr: string) => {
      try {
        return (await conn.runAndReadAll(`SELECT ${expr}, typeof(${expr})`)).getRowsJS()[0];
      } catch {
        return 'error';
      }
    };
    for (const s of inputs) {
      for (const [fast, own] of calls(s)) {
        assert.deepEqual(await outcome(fast), await outcome(own), `${fast} vs ${own}`);
      }
    }
  } finally {
    conn.closeSync();
    db.closeSync();
  }
});
