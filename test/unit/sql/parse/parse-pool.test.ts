import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { parseStatement } from '../../../../src/sql/parse/index.js';
import { StatementParser, workerExecArgv } from '../../../../src/sql/parse/parse-pool.js';

const isSource = (n: string) => n.toLowerCase() === 'pg';

describe('parsing off the event loop', () => {
  test('a long text is parsed in the worker, to the same statement as inline', async () => {
    const sql = `SELECT CASE ${Array.from({ length: 400 }, (_, i) => `WHEN id = ${i} THEN 'v${i}'`).join(' ')} END AS c FROM pg.t`;
    const parser = new StatementParser(100);
    const off = parser.parse(sql, isSource, ['pg']);
    assert.ok(off instanceof Promise, 'a text over the inline limit goes to the worker');
    assert.deepEqual(await off, parseStatement(sql, isSource));
  });

  test('a syntax error from the worker is the same 1064', async () => {
    const parser = new StatementParser(10);
    await assert.rejects(parser.parse('SELECT FROM WHERE nothing', isSource, ['pg']) as Promise<unknown>, {
      code: 1064,
    });
  });

  test("an aborted parse rejects with the signal's reason", async () => {
    const sql = `SELECT ${Array.from({ length: 20_000 }, (_, i) => `a${i}`).join(' + ')}`;
    const ac = new AbortController();
    const p = new StatementParser(10).parse(sql, isSource, ['pg'], ac.signal) as Promise<unknown>;
    ac.abort(new Error('deadline'));
    await assert.rejects(p, /deadline/);
  });

  test("the worker takes the parent's loaders but not its entry options", () => {
    assert.deepEqual(workerExecArgv(['--import', 'tsx', '--input-type=module', '-e', 'code()']), [
      '--import',
      'tsx',
    ]);
    assert.deepEqual(workerExecArgv(['--input-type', 'module', '--eval=x', '--max-old-space-size=512']), []);
    // Node 24's test runner hands its subprocesses process-wide options a worker refuses.
    assert.deepEqual(
      workerExecArgv([
        '--stack-trace-limit=10',
        '--v8-pool-size=4',
        '--import=tsx',
        '-r',
        'x.cjs',
        '--secure-heap=0',
      ]),
      ['--import=tsx', '-r', 'x.cjs'],
    );
  });
});
