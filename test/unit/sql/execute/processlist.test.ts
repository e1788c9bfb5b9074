/** The process list: one id space, who sees what, Info cut at 100 characters, KILL's answers. */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { SqlError } from '../../../../src/core/errors.js';
import { ProcessList } from '../../../../src/sql/execute/processlist.js';
import { parseServiceStatement } from '../../../../src/sql/parse/service.js';

function connection(list: ProcessList, user: string, principal: string | null, log: string[]) {
  const id = list.nextId();
  list.connect({
    id,
    user,
    principal,
    host: '127.0.0.1:5000',
    db: () => 'pgs',
    cancel: () => log.push(`cancel ${id}`),
    close: () => log.push(`close ${id}`),
  });
  return id;
}

test('connections sleep between statements; HTTP statements get ids of the same space', () => {
  const list = new ProcessList('admin');
  const log: string[] = [];
  const conn = connection(list, 'admin', 'admin', log);
  const key = { kill: () => log.push('kill http') };
  list.begin(key, {
    principal: 'alice',
    transport: 'http',
    host: '10.0.0.1:4',
    sql: 'SELECT 1',
    db: undefined,
  });
  const rows = list.rows({ principal: null }, false);
  assert.deepEqual(rows, [
    [conn, 'admin', '127.0.0.1:5000', 'pgs', 'Sleep', 0, '', null],
    [conn + 1, 'alice', '10.0.0.1:4', null, 'Query', 0, 'executing (http)', 'SELECT 1'],
  ]);
  const onConn = { kill: () => log.push('kill wire') };
  const long = `SELECT '${'x'.repeat(200)}'`;
  list.begin(onConn, {
    principal: 'admin',
    transport: 'mysql',
    connection: conn,
    sql: long,
    db: 'pgs',
  });
  const [first] = list.rows({ principal: null }, false);
  assert.deepEqual(first.slice(4), ['Query', 0, 'executing', long.slice(0, 100)]);
  assert.equal(list.rows({ principal: null }, true)[0][7], long);
  list.end(onConn);
  list.end(key);
  assert.deepEqual(
    list.rows({ principal: null }, false).map((r) => r[4]),
    ['Sleep'],
  );
  list.disconnect(conn);
  assert.deepEqual(list.rows({ principal: null }, false), []);
});

test('a principal sees and kills only its own; the admin and auth-off callers see all', () => {
  const list = new ProcessList('admin');
  const log: string[] = [];
  const adminConn = connection(list, 'admin', 'admin', log);
  const a = { kill: () => log.push('kill alice') };
  list.begin(a, {
    principal: 'alice',
    transport: 'mcp',
    sql: 'SELECT 2',
    db: 'x',
  });
  const aliceId = adminConn + 1;
  const ids = (p: string | null) => list.rows({ principal: p }, true).map((r) => r[0]);
  assert.deepEqual(ids('alice'), [aliceId]);
  assert.deepEqual(ids('bob'), []);
  assert.deepEqual(ids('admin'), [adminConn, aliceId]);
  assert.deepEqual(ids(null), [adminConn, aliceId]);
  const code = (f: () => void) => {
    try {
      f();
    } catch (e) {
      return [(e as SqlError).code, (e as SqlError).message];
    }
    return null;
  };
  assert.deepEqual(
    code(() => list.kill({ principal: 'bob' }, aliceId, true)),
    [1095, `You are not owner of thread ${aliceId}`],
  );
  assert.deepEqual(
    code(() => list.kill({ principal: 'alice' }, adminConn, false)),
    [1095, `You are not owner of thread ${adminConn}`],
  );
  assert.deepEqual(
    code(() => list.kill({ principal: 'admin' }, 999, true)),
    [1094, 'Unknown thread id: 999'],
  );
  list.kill({ principal: 'alice' }, aliceId, true);
  list.kill({ principal: 'admin' }, adminConn, true);
  list.kill({ principal: 'admin' }, adminConn, false);
  assert.deepEqual(log, ['kill alice', `cancel ${adminConn}`, `close ${adminConn}`]);
});

test('ids skip those in use when the counter wraps', () => {
  const list = new ProcessList();
  const first = list.nextId();
  list.connect({ id: first, user: 'u', principal: null, host: '', db: () => null, cancel() {}, close() {} });
  (list as unknown as { lastId: number }).lastId = 0xffffffff;
  assert.equal(list.nextId(), first + 1);
});

test('SHOW [FULL] PROCESSLIST and KILL [QUERY | CONNECTION] n parse', () => {
  assert.deepEqual(parseServiceStatement('SHOW PROCESSLIST'), { kind: 'show_processlist', full: false });
  assert.deepEqual(parseServiceStatement('show full processlist;'), { kind: 'show_processlist', full: true });
  assert.deepEqual(parseServiceStatement('KILL 12'), { kind: 'kill', id: 12, query: false });
  assert.deepEqual(parseServiceStatement('KILL QUERY 12'), { kind: 'kill', id: 12, query: true });
  assert.deepEqual(parseServiceStatement('KILL CONNECTION 12'), { kind: 'kill', id: 12, query: false });
});
