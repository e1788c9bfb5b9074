import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { quoteIdent, sampleTableText } from '../../../src/mcp/prompt.js';
import { toToolResult } from '../../../src/mcp/query-tool.js';
import { queryOutputSchema } from '../../../src/mcp/result-schema.js';

describe('toToolResult', () => {
  test('a table result: structuredContent under result, one text item with the same JSON, no isError', () => {
    const result = { type: 'table' as const, column_names: ['a'], data: [[1]] };
    const r = toToolResult(result);
    assert.deepEqual(r.structuredContent, { result });
    assert.deepEqual(r.content, [{ type: 'text', text: JSON.stringify(result) }]);
    assert.equal('isError' in r, false);
  });

  test('an error result sets isError', () => {
    const r = toToolResult({ type: 'error', error_code: 1064, error_message: 'syntax' });
    assert.equal(r.isError, true);
  });
});

describe('query output schema', () => {
  const validate = (v: unknown) => queryOutputSchema['~standard'].validate(v) as { issues?: unknown[] };

  test('accepts the three SPEC result shapes', () => {
    assert.equal(validate({ result: { type: 'table', column_names: [], data: [] } }).issues, undefined);
    assert.equal(
      validate({ result: { type: 'table', column_names: ['a'], data: [[1]], truncated: true } }).issues,
      undefined,
    );
    assert.equal(validate({ result: { type: 'ok', affected_rows: null } }).issues, undefined);
    assert.equal(validate({ result: { type: 'ok', affected_rows: 3 } }).issues, undefined);
    assert.equal(
      validate({ result: { type: 'error', error_code: 1146, error_message: 'x' } }).issues,
      undefined,
    );
  });

  test('refuses shapes outside the contract', () => {
    for (const bad of [
      null,
      {},
      { result: { type: 'rows' } },
      { result: { type: 'table', column_names: ['a'] } },
      { result: { type: 'table', column_names: [], data: [], truncated: false } },
      { result: { type: 'ok', affected_rows: 1.5 } },
      { result: { type: 'error', error_code: '1064', error_message: 'x' } },
    ]) {
      assert.ok(validate(bad).issues?.length, JSON.stringify(bad));
    }
  });

  test('its JSON Schema is an object with result required and one branch per shape', () => {
    const js = queryOutputSchema['~standard'].jsonSchema.output({ target: 'draft-2020-12' }) as any;
    assert.equal(js.type, 'object');
    assert.deepEqual(js.required, ['result']);
    assert.deepEqual(
      js.properties.result.oneOf.map((b: any) => b.properties.type.const),
      ['table', 'ok', 'error'],
    );
  });
});

describe('sample_table prompt text', () => {
  test('quotes both names as MySQL identifiers', () => {
    assert.equal(quoteIdent('we`ird'), '`we``ird`');
    const text = sampleTableText('my db', 'or`ders');
    assert.ok(text.includes('SELECT * FROM `my db`.`or``ders` LIMIT 5'), text);
    assert.ok(text.includes('`query` tool'));
  });
});
