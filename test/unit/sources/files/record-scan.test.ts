import assert from 'node:assert/strict';
import { test } from 'node:test';
import { CsvRecordScan } from '../../../../src/sources/files/csv-check.js';

function scan(text: string, delimiter: 0x2c | 0x09 = 0x2c, chunk = 1 << 16) {
  const s = new CsvRecordScan(delimiter);
  const buf = Buffer.from(text);
  for (let i = 0; i < buf.length; i += chunk) s.push(buf.subarray(i, i + chunk));
  return s.end();
}

const CASES: [
  string,
  string,
  { rows: number | null; ragged: unknown; unclosedQuote: boolean; unclosedQuoteLine: number | null },
][] = [
  ['plain', 'a,b\n1,2\n3,4\n', { rows: 2, ragged: null, unclosedQuote: false, unclosedQuoteLine: null }],
  [
    'no final newline',
    'a,b\n1,2\n3,4',
    { rows: 2, ragged: null, unclosedQuote: false, unclosedQuoteLine: null },
  ],
  ['CRLF', 'a,b\r\n1,2\r\n3,4\r\n', { rows: 2, ragged: null, unclosedQuote: false, unclosedQuoteLine: null }],
  [
    'empty lines skipped',
    'a,b\n1,2\n\n3,4\n\n',
    { rows: 2, ragged: null, unclosedQuote: false, unclosedQuoteLine: null },
  ],
  [
    'quoted delimiter and newline',
    'a,b\n"x, y\nz",2\n3,"4"\n',
    { rows: 2, ragged: null, unclosedQuote: false, unclosedQuoteLine: null },
  ],
  [
    'doubled quotes',
    'a,b\n"say ""hi"", ok",2\n',
    { rows: 1, ragged: null, unclosedQuote: false, unclosedQuoteLine: null },
  ],
  [
    'one column with an empty line: unsure',
    'a\n1\n\n2\n',
    { rows: null, ragged: null, unclosedQuote: false, unclosedQuoteLine: null },
  ],
  [
    'too few fields',
    'a,b\n1,2\n3\n',
    {
      rows: null,
      ragged: { line: 3, fields: 1, expected: 2 },
      unclosedQuote: false,
      unclosedQuoteLine: null,
    },
  ],
  [
    'too many fields',
    'a,b\n1,2,3\n',
    {
      rows: null,
      ragged: { line: 2, fields: 3, expected: 2 },
      unclosedQuote: false,
      unclosedQuoteLine: null,
    },
  ],
  [
    'line numbers count newlines inside quotes',
    'a,b\n"x\ny",2\n1\n',
    {
      rows: null,
      ragged: { line: 4, fields: 1, expected: 2 },
      unclosedQuote: false,
      unclosedQuoteLine: null,
    },
  ],
  ['unclosed quote', 'a,b\n"1,2\n', { rows: null, ragged: null, unclosedQuote: true, unclosedQuoteLine: 2 }],
  ['header only', 'a,b\n', { rows: 0, ragged: null, unclosedQuote: false, unclosedQuoteLine: null }],
];

for (const [name, text, want] of CASES) {
  test(`record scan: ${name}`, () => {
    assert.deepEqual(scan(text), want);
    // Any chunking gives the same answer.
    assert.deepEqual(scan(text, 0x2c, 1), want);
    assert.deepEqual(scan(text, 0x2c, 3), want);
  });
}

test('record scan: TSV counts tabs, not commas', () => {
  assert.deepEqual(scan('a\tb\n1,5\tx\n', 0x09), {
    rows: 1,
    ragged: null,
    unclosedQuote: false,
    unclosedQuoteLine: null,
  });
});
