/**
 * ExecOptions.abort: a face lends one AbortController to its statements one after another
 * (the MySQL listener does, per connection). Every listener a source or the engine adds to
 * it for a statement must be gone when that statement ends, whatever the path (pushdown to
 * PostgreSQL or MariaDB, the wire relay, a cross-source join in DuckDB, an error, a stream
 * stopped early), or they would pile up and a later KILL QUERY would reach statements long
 * over. The one exception is the relay pipeline's (sources/mysql/pipeline.ts): one listener
 * per signal for as long as the signal lives, which aborts only the statements of that
 * signal still waiting or running. A time-out aborts the lent switch itself and is answered 3024.
 */
import assert from 'node:assert/strict';
import { getEventListeners } from 'node:events';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { createDeps } from '../../../../src/cli/start.js';
import { loadConfig } from '../../../../src/config/load.js';
import { createLogger } from '../../../../src/core/logger.js';
import type { AppDeps } from '../../../../src/http/deps.js';
import type { ResultPacketSink } from '../../../../src/sources/types.js';
import type { Engine } from '../../../../src/sql/engine.js';
import { mariaParams, pgParams } from '../../../helpers/server.js';
import { createMariaDatabase, createPgDatabase, mariaExec, pgExec } from '../../../helpers/services.js';

describe('a lent AbortController serves statement after statement', () => {
  let storageDir: string;
  let deps: AppDeps;
  let engine: Engine;
  let pgDb: { database: string; drop: () => Promise<void> };
  let myDb: { database: string; drop: () => Promise<void> };
  const lent = new AbortController();
  const listeners = () => getEventListeners(lent.signal, 'abort').length;

  before(async () => {
    pgDb = await createPgDatabase();
    myDb = await createMariaDatabase();
    await pgExec(
      pgDb.database,
      'CREATE TABLE t AS SELECT g AS id, g % 5 AS k FROM generate_series(1, 5000) g',
    );
    await mariaExec(
      myDb.database,
      'CREATE TABLE t (id INT PRIMARY KEY, name VARCHAR(20)); INSERT INTO t SELECT seq, CONCAT("n", seq) FROM seq_1_to_5000;',
    );
    storageDir = mkdtempSync(join(tmpdir(), 'tributary-lent-'));
    const config = await loadConfig({
      argv: {},
      env: { TRIBUTARY_STORAGE_DIR: storageDir, TRIBUTARY_HTTP_PORT: '0', TRIBUTARY_MYSQL_PORT: '0' },
    });
    deps = await createDeps(config, createLogger('silent'));
    engine = deps.engine as Engine;
    for (const sql of [
      `CREATE DATABASE pg WITH ENGINE = 'postgres', PARAMETERS = ${pgParams(pgDb.database)}`,
      `CREATE DATABASE my WITH ENGINE = 'mariadb', PARAMETERS = ${mariaParams(myDb.database)}`,
    ])
      assert.equal((await engine.execute(sql)).type, 'ok', sql);
  });

  after(async () => {
    await deps?.engine.close();
    await deps?.catalog.close();
    if (storageDir) rmSync(storageDir, { recursive: true, force: true });
    await pgDb?.drop();
    await myDb?.drop();
  });

  test('no listener outlives its statement, on any path', async () => {
    const statements = [
      'SELECT id FROM pg.t WHERE id = 7',
      'SELECT name FROM my.t WHERE id = 7',
      'SELECT p.k, COUNT(*) FROM pg.t p JOIN my.t m ON m.id = p.id GROUP BY p.k ORDER BY p.k',
      'SELECT nope FROM my.t',
      'SELECT * FROM pg.missing',
    ];
    for (let round = 0; round < 3; round++)
      for (const sql of statements) {
        await engine.execute(sql, {}, { abort: lent });
        assert.equal(listeners(), 0, sql);
      }

    // The relay (the MySQL listener's path for a plain SELECT on a MySQL source).
    let rows = 0;
    const sink: ResultPacketSink = {
      head: () => {},
      row: () => {
        rows++;
        return true;
      },
    };
    // A quick shape is pipelined from its second run on: the pipeline's one listener, then no more.
    for (let i = 1; i <= 8; i++) {
      const r = await engine.relay('SELECT id, name FROM my.t WHERE id <= 100', {}, { abort: lent }, sink);
      assert.deepEqual(r, { type: 'relayed', rows: 100 });
      assert.ok(listeners() <= 1, `after relay ${i}: ${listeners()} listeners`);
    }
    assert.equal(rows, 800);
    const kept = listeners();

    // A stream its reader stops after the first batch.
    const s = await engine.stream('SELECT id FROM my.t', {}, { abort: lent });
    assert.equal(s.type, 'rows');
    if (s.type === 'rows') {
      for await (const _ of s.batches) break;
      await s.cancel();
    }
    assert.equal(listeners(), kept);
    assert.equal(lent.signal.aborted, false);
  });

  test("the pipeline's listener, fired after its statements ended, stops nothing of another switch", async () => {
    const first = new AbortController();
    const sink: ResultPacketSink = { head: () => {}, row: () => true };
    const sql = 'SELECT id, name FROM my.t WHERE id <= 50';
    // Until the shape is known quick and pipelined (a loaded machine may take a few runs).
    for (let i = 0; i < 50 && getEventListeners(first.signal, 'abort').length === 0; i++)
      assert.deepEqual(await engine.relay(sql, {}, { abort: first }, sink), { type: 'relayed', rows: 50 });
    assert.equal(getEventListeners(first.signal, 'abort').length, 1, "the pipeline's one listener");
    // Another connection's statements wait in the pipeline when this one's KILL QUERY comes:
    // the listener finds nothing of its own to stop, and theirs all answer.
    const next = new AbortController();
    const others = Array.from({ length: 4 }, () => engine.relay(sql, {}, { abort: next }, sink));
    first.abort();
    assert.equal(getEventListeners(first.signal, 'abort').length, 0);
    for (const r of await Promise.all(others)) assert.deepEqual(r, { type: 'relayed', rows: 50 });
    assert.equal(next.signal.aborted, false);
  });

  test('a time-out aborts the lent switch and answers 3024', async () => {
    const own = new AbortController();
    const r = await engine.execute(
      'SELECT COUNT(*) FROM pg.t a, pg.t b, pg.t c',
      {},
      { abort: own, timeoutMs: 300 },
    );
    assert.equal(r.type, 'error');
    assert.equal(r.type === 'error' && r.error_code, 3024);
    assert.equal(own.signal.aborted, true);
    assert.equal(getEventListeners(own.signal, 'abort').length, 0);
  });

  test('KILL through the lent switch reaches the running statement', async () => {
    const own = new AbortController();
    const running = engine.execute('SELECT COUNT(*) FROM pg.t a, pg.t b, pg.t c', {}, { abort: own });
    await new Promise((r) => setTimeout(r, 200));
    own.abort();
    const r = await running;
    assert.equal(r.type, 'error');
    assert.equal(r.type === 'error' && r.error_code, 1317);
  });
});
