/** The delimiter of a CSV, decided from its first records (issue 28): sample text → delimiter. */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import {
  type Delimiter,
  detectDelimiter,
  parseDelimiterParam,
} from '../../../../src/sources/files/csv-delimiter.js';

const CASES: [string, string, Delimiter][] = [
  ['comma', 'id,name,amount\n1,Ann,12.50\n2,Bob,3.99\n', ','],
  ['semicolon (European Excel, decimal commas)', 'id;name;amount\r\n1;Ann;12,50\r\n2;Bob;3,99\r\n', ';'],
  ['tab', 'id\tname\tnote\n1\tAnn\ta, b, c\n2\tBob\td, e\n', '\t'],
  ['pipe', 'id|name|note\n1|Ann|a, b\n2|Bob|c; d\n', '|'],
  ['commas only inside quotes of a semicolon file', 'a;b\n"x, y, z";1\n"p, q";2\n', ';'],
  ['semicolons only inside quotes of a comma file', 'a,b\n"x; y; z",1\n"p; q",2\n', ','],
  ['a quoted line break holding other delimiters', 'a|b\n"line1\nx,y;z"|1\n2|3\n', '|'],
  ['CRLF inside quotes', 'a;b\r\n"one\r\ntwo, three";1\r\n4;5\r\n', ';'],
  ['a header with a comma in a semicolon file', 'Name, first;Amount\nSmith, J;1,5\nDoe, A;2\n', ';'],
  ['one column: comma', 'name\nAnn\nBob\n', ','],
  ['empty text: comma', '', ','],
  ['header only', 'a;b;c', ';'],
  ['byte-order mark', '\uFEFFa;b\n1;2\n', ';'],
  ['more fields win a tie of consistent records', 'a,b;c;d\n1,2;3;4\n', ';'],
  ['an equal tie goes to the comma', 'a,b;c\n1,2;3\n', ','],
  ['a ragged row does not lose the delimiter', 'a;b\n1;2\n3;4;5\n6;7\n8;9\n', ';'],
  ['a decimal comma column is not the delimiter', 'x;y\n1,5;2,25\n3,5;4\n', ';'],
];

for (const [name, text, want] of CASES) {
  test(`detectDelimiter: ${name}`, () => {
    assert.equal(detectDelimiter(text, true), want);
  });
}

test('detectDelimiter: a cut last line of the sample does not count', () => {
  // The cut record has one comma and no semicolon; only complete ones are counted.
  const sample = 'a;b\n1;2\n3;4\n5,';
  assert.equal(detectDelimiter(sample, false), ';');
});

test('parseDelimiterParam: symbols and names; anything else is a 400 naming the choices', () => {
  for (const [text, d] of [
    [',', ','],
    [';', ';'],
    ['\t', '\t'],
    ['\\t', '\t'],
    ['tab', '\t'],
    ['TAB', '\t'],
    ['|', '|'],
    ['pipe', '|'],
    ['semicolon', ';'],
  ] as const)
    assert.equal(parseDelimiterParam(text), d);
  assert.throws(
    () => parseDelimiterParam(':'),
    (e: Error & { status?: number }) => {
      assert.equal(e.status, 400);
      assert.match(e.message, /Invalid delimiter ':'.*\|/);
      return true;
    },
  );
});
