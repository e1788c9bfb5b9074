/**
 * Result column metadata against MariaDB itself: for a plain column of a source table the
 * column definition carries the table (alias and real name), the column's own name, and its
 * NOT NULL, key, AUTO_INCREMENT and UNSIGNED flags, as mysql2 and Connector/J's
 * ResultSetMetaData read them from MariaDB directly; an expression keeps an empty table.
 */
import assert from 'node:assert/strict';
import { execFile, execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { promisify } from 'node:util';
import mysql from 'mysql2/promise';
import { ensureJavaClients } from '../../helpers/debian-clients.js';
import { MARIADB, mariaExec } from '../../helpers/services.js';
import { startWireFixture, type WireFixture } from './helpers.js';

const run = promisify(execFile);
const SOURCE = new URL('./jdbc/ColumnMeta.java', import.meta.url).pathname;
let fx: WireFixture;
let java: ReturnType<typeof ensureJavaClients>;
let classes = '';

before(async () => {
  java = ensureJavaClients();
  classes = mkdtempSync(join(tmpdir(), 'tributary-jdbc-meta-'));
  execFileSync(java.javac, ['-d', classes, '-cp', java.jar, SOURCE], { stdio: 'pipe', timeout: 120_000 });
  fx = await startWireFixture();
  await mariaExec(
    fx.mariaDatabase,
    `CREATE TABLE meta (id int unsigned NOT NULL AUTO_INCREMENT PRIMARY KEY, code varchar(10) NOT NULL UNIQUE,
       grp int, note text, bin varbinary(8), KEY (grp));
     INSERT INTO meta (code, grp, note, bin) VALUES ('a', 1, 'n', x'00ff');`,
  );
});

after(async () => {
  await fx?.stop();
  if (classes) rmSync(classes, { recursive: true, force: true });
});

/** The flags that describe the column itself: NOT_NULL, PRI_KEY, UNIQUE_KEY, MULTIPLE_KEY, UNSIGNED, AUTO_INCREMENT. */
const COLUMN_FLAGS = 1 | 2 | 4 | 8 | 32 | 512;

type Field = { name: string; table: string; orgTable: string; orgName: string; flags: number };

function described(fields: Field[]) {
  return fields.map((f) => ({
    name: f.name,
    table: f.table,
    orgTable: f.orgTable,
    orgName: f.orgName,
    flags: f.flags & COLUMN_FLAGS,
  }));
}

/** The same statement through the listener (naming source `mys`) and on MariaDB directly. */
const PAIRS: [string, string][] = [
  ['SELECT * FROM mys.meta', 'SELECT * FROM meta'],
  [
    'SELECT m.id AS x, m.code, m.grp FROM mys.meta m WHERE m.id > 0',
    'SELECT m.id AS x, m.code, m.grp FROM meta m WHERE m.id > 0',
  ],
];

test('mysql2 reads the same table, names and column flags as from MariaDB directly', async () => {
  const direct = await mysql.createConnection({ ...MARIADB, database: fx.mariaDatabase });
  const ours = await mysql.createConnection({ host: '127.0.0.1', port: fx.port, user: 'anyone' });
  try {
    for (const [sql, mariaSql] of PAIRS) {
      const [, mine] = await ours.query(sql);
      const [, theirs] = await direct.query(mariaSql);
      assert.deepEqual(described(mine as Field[]), described(theirs as Field[]), sql);
      for (const f of mine as (Field & { schema: string })[])
        assert.equal(f.schema, 'mys', 'the schema is the source');
      // Prepared (binary protocol) the same.
      const [, minePrepared] = await ours.execute(sql);
      assert.deepEqual(described(minePrepared as Field[]), described(theirs as Field[]), `${sql} (prepared)`);
    }
    const [, expr] = await ours.query('SELECT id + 1 AS e, UPPER(code) AS u FROM mys.meta');
    assert.deepEqual(
      (expr as Field[]).map((f) => [f.table, f.orgTable]),
      [
        ['', ''],
        ['', ''],
      ],
      'expressions keep an empty table',
    );
  } finally {
    await direct.end();
    await ours.end();
  }
});

async function jdbcColumns(url: string, sql: string): Promise<Record<string, unknown>[]> {
  const { stdout } = await run(java.java, ['-cp', `${java.jar}:${classes}`, 'ColumnMeta', url, sql], {
    timeout: 60_000,
  });
  return stdout
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l));
}

test("Connector/J's ResultSetMetaData: table name, nullability, auto-increment and sign as from MariaDB", async () => {
  const direct = `jdbc:mariadb://127.0.0.1:${MARIADB.port}/${fx.mariaDatabase}?user=root`;
  const ours = `jdbc:mariadb://127.0.0.1:${fx.port}/?user=anyone`;
  for (const [sql, mariaSql] of PAIRS) {
    const mine = await jdbcColumns(ours, sql);
    const theirs = await jdbcColumns(direct, mariaSql);
    assert.deepEqual(mine, theirs, sql);
  }
  assert.deepEqual(
    (await jdbcColumns(ours, 'SELECT * FROM mys.meta')).map((c) => [c.table, c.nullable, c.autoIncrement]),
    [
      ['meta', 0, true],
      ['meta', 0, false],
      ['meta', 1, false],
      ['meta', 1, false],
      ['meta', 1, false],
    ],
  );
});
