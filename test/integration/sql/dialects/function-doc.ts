/**
 * docs/reference/functions.md, made from the function matrix (function-matrix.ts) and the
 * compilers: for each function and each kind of source, whether the statement is said in
 * the source's own SQL (✓), evaluated by the local engine because the source cannot say it
 * (local), or refused with 1235 naming the function. functions.test.ts checks that what
 * compiles answers what MariaDB answers; functions-doc.test.ts that the file is this text.
 * Written by `node --import tsx scripts/gen-functions-doc.ts`.
 */
import { canCompile } from '../../../../src/sql/dialects/index.js';
import { fixtureOptsFor, parseFixtureSql } from './compile-fixture.js';
import { caseSql, FUNCTIONS, type FunctionCase, type MatrixTarget } from './function-matrix.js';

export const DOC_TARGETS: { target: MatrixTarget; title: string }[] = [
  { target: 'postgres', title: 'PostgreSQL' },
  { target: 'mysql', title: 'MySQL / MariaDB' },
  { target: 'sqlite', title: 'SQLite' },
  { target: 'duckdb', title: 'DuckDB, files' },
];

export type Cell =
  | { kind: 'pushed' }
  | { kind: 'local'; reason: string }
  | { kind: 'refused'; reason: string };

/** How a case is answered on a kind of source (no database needed). */
export function cellOf(f: FunctionCase, target: MatrixTarget): Cell {
  const ast = parseFixtureSql(caseSql(f));
  const own = canCompile(ast, target, fixtureOptsFor(target));
  if (own.ok) return { kind: 'pushed' };
  if (target !== 'duckdb' && canCompile(parseFixtureSql(caseSql(f)), 'duckdb', fixtureOptsFor('duckdb')).ok)
    return { kind: 'local', reason: own.reason };
  return { kind: 'refused', reason: own.reason };
}

const esc = (s: string) => s.replace(/\|/g, '\\|');

export function functionsDoc(): string {
  const notes: string[] = [];
  const note = (text: string) => {
    let i = notes.indexOf(text);
    if (i < 0) i = notes.push(text) - 1;
    return `[${i + 1}](#note-${i + 1})`;
  };
  const counts = new Map<MatrixTarget, { pushed: number; local: number; refused: number }>(
    DOC_TARGETS.map((t) => [t.target, { pushed: 0, local: 0, refused: 0 }]),
  );
  const rows: string[] = [];
  for (const f of FUNCTIONS) {
    const cells = DOC_TARGETS.map(({ target }) => {
      const cell = cellOf(f, target);
      counts.get(target)![cell.kind]++;
      const known = f.known?.[target];
      let text = cell.kind === 'pushed' ? '✓' : cell.kind === 'local' ? 'local' : '1235';
      // A refusal of the function as a whole needs no note; a narrower one (an argument, a mode) does.
      if (cell.kind !== 'pushed' && cell.reason !== `function ${f.name}` && cell.reason !== f.name)
        text += ` ${note(`${cell.kind === 'local' ? 'local' : '1235'}: ${cell.reason}`)}`;
      if (known) text += ` ≈ ${note(known)}`;
      if (target === 'mysql' && f.reference)
        text += ` ${note('MySQL 8 runs it; MariaDB has no such function (the test asks MariaDB another way)')}`;
      return text;
    });
    rows.push(`| \`${esc(f.name)}\` | ${f.group} | ${cells.join(' | ')} |`);
  }
  const summary = DOC_TARGETS.map(({ target, title }) => {
    const c = counts.get(target)!;
    return `| ${title} | ${c.pushed} | ${c.local} | ${c.refused} |`;
  });
  return [
    '# MySQL functions by kind of source',
    '',
    '<!-- Generated from test/integration/sql/dialects/function-matrix.ts by',
    '     `node --import tsx scripts/gen-functions-doc.ts`; test/unit/sql/dialects/functions-doc.test.ts',
    '     fails when this file and the code disagree. Do not edit by hand. -->',
    '',
    "Every MySQL 8 data function, and where it runs. A statement over one source is said in the source's",
    "own SQL with MySQL's meaning (**✓**); what the source cannot say is evaluated by the local engine",
    '(DuckDB) over the rows the source sends (**local**: the same answer, more rows moved); what neither can',
    'say is refused with error **1235** (`ER_NOT_SUPPORTED_YET`, SQLSTATE 42000) naming the function and the',
    'source, never answered with a different value. **≈** marks a known difference from MySQL, with its note.',
    '',
    'Each row is tested (test/integration/sql/dialects/functions.test.ts): the calls of the function, with',
    'literals and with column values, run on MariaDB (the reference) and on PostgreSQL, SQLite and DuckDB',
    'as compiled for them; the answers must agree. "DuckDB, files" is also the local engine, and the',
    'engine of uploaded files (CSV, Parquet, JSON).',
    '',
    '| Source | ✓ | local | 1235 |',
    '|---|---|---|---|',
    ...summary,
    '',
    `| Function | Group | ${DOC_TARGETS.map((t) => t.title).join(' | ')} |`,
    `|---|---|${DOC_TARGETS.map(() => '---').join('|')}|`,
    ...rows,
    '',
    '## Notes',
    '',
    ...notes.map((n, i) => `${i + 1}. <a id="note-${i + 1}"></a>${esc(n)}`),
    '',
  ].join('\n');
}
