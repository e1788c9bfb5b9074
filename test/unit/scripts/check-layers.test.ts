import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { after, describe, test } from 'node:test';
// @ts-expect-error: a plain .mjs script without type declarations
import { check } from '../../../scripts/check-layers.mjs';

const dirs: string[] = [];
after(() => {
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

/** A throwaway src/ tree: path → file text. */
function tree(files: Record<string, string>): string {
  const root = mkdtempSync(join(tmpdir(), 'layers-'));
  dirs.push(root);
  for (const [path, text] of Object.entries(files)) {
    mkdirSync(dirname(join(root, path)), { recursive: true });
    writeFileSync(join(root, path), text);
  }
  return root;
}

describe('the layer check (scripts/check-layers.mjs)', () => {
  test('the repository itself passes', () => {
    assert.deepEqual(check('src'), []);
  });

  test('imports that point down pass', () => {
    const src = tree({
      'core/errors.ts': 'export class E {}',
      'sources/pg.ts': "import { E } from '../core/errors.js';\nexport const x = E;",
      'sql/engine.ts': "import { x } from '../sources/pg.js';\nexport const y = x;",
    });
    assert.deepEqual(check(src), []);
  });

  test('a source importing the engine fails, naming the file, the line and the layers', () => {
    const src = tree({
      'sql/types.ts': 'export type T = number;',
      'sources/pg.ts': "// first line\nimport type { T } from '../sql/types.js';\nexport const x: T = 1;",
    });
    const problems: string[] = check(src);
    assert.equal(problems.length, 1);
    assert.match(
      problems[0],
      /sources[/\\]pg\.ts:2: sources imports sql \(sql[/\\]types\.ts\): sql is not below sources/,
    );
  });

  test('dynamic imports and re-exports count; imports in comments and strings do not', () => {
    const src = tree({
      'sql/engine.ts': 'export const e = 1;',
      'sources/a.ts': "export { e } from '../sql/engine.js';",
      'sources/b.ts': "export const load = () => import('../sql/engine.js');",
      'sources/c.ts':
        "// import { e } from '../sql/engine.js';\nexport const s = \"import '../sql/engine.js'\";",
    });
    const problems: string[] = check(src);
    assert.equal(problems.length, 2);
    assert.ok(problems.some((p) => p.includes('a.ts:1')));
    assert.ok(problems.some((p) => p.includes('b.ts:1')));
  });

  test('a cycle inside one room fails', () => {
    const src = tree({
      'http/a.ts': "import { b } from './b.js';\nexport const a = () => b;",
      'http/b.ts': "import { a } from './a.js';\nexport const b = () => a;",
    });
    const problems: string[] = check(src);
    assert.equal(problems.length, 1);
    assert.match(problems[0], /^cycle: .*a\.ts -> .*b\.ts$/);
  });

  test('a room missing from the layer table fails', () => {
    const src = tree({
      'mystery/x.ts': "import { E } from '../core/e.js';",
      'core/e.ts': 'export const E = 1;',
    });
    assert.match(check(src)[0], /a room outside the layer table/);
  });

  test('config/load.ts may be imported by start-up only', () => {
    const src = tree({
      'config/load.ts': 'export const load = 1;',
      'sql/engine.ts': "import { load } from '../config/load.js';",
      'cli/start.ts': "import { load } from '../config/load.js';",
    });
    const problems: string[] = check(src);
    assert.equal(problems.length, 1);
    assert.match(problems[0], /sql imports config[/\\]load\.ts, which only cli may import/);
  });
});
