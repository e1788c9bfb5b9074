import assert from 'node:assert/strict';
import { test } from 'node:test';
import { CsvRecordScan } from '../../../../src/sources/files/csv-check.js';
import type { Delimiter } from '../../../../src/sources/files/csv-delimiter.js';

function full(text: string, delimiter: Delimiter | null = ',', chunk = 1 << 16) {
  const s = new CsvRecordScan(delimiter);
  const buf = Buffer.from(text);
  for (let i = 0; i < buf.length; i += chunk) s.push(buf.subarray(i, i + chunk));
  return s.end();
}

/** The record counts and problems (the numbers have their own tests below). */
function scan(text: string, delimiter: Delimiter | null = ',', chunk = 1 << 16) {
  const { rows, ragged, unclosedQuote, unclosedQuoteLine } = full(text, delimiter, chunk);
  return { rows, ragged, unclosedQuote, unclosedQuoteLine };
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
    assert.deepEqual(scan(text, ',', 1), want);
    assert.deepEqual(scan(text, ',', 3), want);
  });
}

test('record scan: TSV counts tabs, not commas', () => {
  assert.deepEqual(scan('a\tb\n1,5\tx\n', '\t'), {
    rows: 1,
    ragged: null,
    unclosedQuote: false,
    unclosedQuoteLine: null,
  });
});

test('record scan: semicolon and pipe files, and a delimiter detected from the head', () => {
  const want = { rows: 2, ragged: null, unclosedQuote: false, unclosedQuoteLine: null };
  assert.deepEqual(scan('a;b\n1,5;x\n2;"y;z"\n', ';'), want);
  assert.deepEqual(scan('a|b\n1,5|x\n2|"y|z"\n', '|'), want);
  for (const [text, d] of [
    ['a;b\n1,5;x\n2;"y;z"\n', ';'],
    ['a|b\n1|x\n2|y\n', '|'],
    ['a\tb\n1\tx\n', '\t'],
    ['a,b\n1,x\n', ','],
  ] as const) {
    for (const chunk of [1, 3, 1 << 16])
      assert.equal(full(text, null, chunk).delimiter, d, `${text} by ${chunk}`);
  }
  // Decided on the first 64 KiB, then every record is split on it.
  const big = `a;b\n${'1;x\n'.repeat(30_000)}2;y;z\n`;
  assert.deepEqual(full(big, null, 1000).ragged, { line: 30_002, fields: 3, expected: 2 });
});

test('record scan: which columns hold only fixed-point numbers, their scale and digits', () => {
  const text =
    'id,amount,code,note,neg,blank\n' +
    '1,12.50,007,x,-3.125,\n' +
    '2, 3.9 ,12a,"4.5",-10,\n' +
    '3,"1234.5",8,1e5, 2 ,\n' +
    '4,,9,-,.5,\n';
  for (const chunk of [1, 2, 7, 1 << 16]) {
    assert.deepEqual(
      full(text, ',', chunk).numbers,
      [
        { fixedPoint: true, scale: 0, digits: 1, decimalComma: false },
        { fixedPoint: true, scale: 2, digits: 4, decimalComma: false },
        { fixedPoint: false, scale: 0, digits: 3, decimalComma: false },
        { fixedPoint: false, scale: 1, digits: 1, decimalComma: false },
        { fixedPoint: false, scale: 3, digits: 2, decimalComma: false },
        { fixedPoint: true, scale: 0, digits: 0, decimalComma: false },
      ],
      `chunk ${chunk}`,
    );
  }
  // A quoted line break or delimiter is text; the CRLF line end is not.
  assert.deepEqual(
    full('a;b\r\n"1\r\n2";"3;4"\r\n5.25;6\r\n', ';').numbers.map((n) => n.fixedPoint),
    [false, false],
  );
  assert.deepEqual(full('a;b\r\n1.5;2\r\n5.25;6\r\n', ';').numbers, [
    { fixedPoint: true, scale: 2, digits: 1, decimalComma: false },
    { fixedPoint: true, scale: 0, digits: 1, decimalComma: false },
  ]);
});

test('record scan: decimal commas where the comma does not delimit (Excel in much of Europe)', () => {
  const text = 'id;betrag;mixed;text\r\n1;12,50;1,5;a,b\r\n2;-3;2.5;c\r\n3;1234,125;3;1,x\r\n';
  for (const chunk of [1, 5, 1 << 16])
    assert.deepEqual(full(text, ';', chunk).numbers, [
      { fixedPoint: true, scale: 0, digits: 1, decimalComma: false },
      { fixedPoint: true, scale: 3, digits: 4, decimalComma: true },
      { fixedPoint: false, scale: 1, digits: 1, decimalComma: false },
      { fixedPoint: false, scale: 0, digits: 0, decimalComma: false },
    ]);
  // In a comma file a comma always delimits (a quoted "12,50" is text).
  assert.deepEqual(full('a,b\n"12,50",1\n', ',').numbers[0].fixedPoint, false);
});
