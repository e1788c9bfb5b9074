/** What drivers and BI tools send on connect, and what a MySQL 8 server answers (table-driven). */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { type Answer, bare, chatter, likeRegex, type SessionInfo } from '../../../src/wire/chatter.js';

const session = (over: Partial<SessionInfo> = {}): SessionInfo => ({
  db: 'pg',
  user: 'ada',
  host: '127.0.0.1',
  connectionId: 7,
  serverVersion: '8.0.40-tributary-0.1.0',
  productVersion: '0.1.0',
  port: 47335,
  tls: false,
  readOnly: false,
  vars: new Map(),
  ...over,
});

function rows(a: Answer | null): { names: string[]; rows: unknown[][] } {
  assert.ok(a && a.kind === 'rows', `expected rows, got ${JSON.stringify(a)}`);
  return { names: a.columns.map((c) => c.name), rows: a.rows };
}

const SELECTS: [string, string[], unknown[]][] = [
  ['SELECT @@version_comment LIMIT 1', ['@@version_comment'], ['Tributary 0.1.0']],
  [
    'SELECT @@max_allowed_packet, @@session.transaction_isolation',
    ['@@max_allowed_packet', '@@session.transaction_isolation'],
    [67108864, 'REPEATABLE-READ'],
  ],
  [
    'select DATABASE(), USER(), CONNECTION_ID(), version()',
    ['DATABASE()', 'USER()', 'CONNECTION_ID()', 'version()'],
    ['pg', 'ada@127.0.0.1', 7, '8.0.40-tributary-0.1.0'],
  ],
  // MySQL Connector/J's first statement (shortened).
  [
    '/* mysql-connector-j-8.4.0 */SELECT  @@session.auto_increment_increment AS auto_increment_increment, @@character_set_client AS character_set_client, @@collation_server AS collation_server, @@lower_case_table_names AS lower_case_table_names, @@time_zone AS time_zone, @@wait_timeout AS wait_timeout',
    [
      'auto_increment_increment',
      'character_set_client',
      'collation_server',
      'lower_case_table_names',
      'time_zone',
      'wait_timeout',
    ],
    [1, 'utf8mb4', 'utf8mb4_general_ci', 0, '+00:00', 28800],
  ],
  ['SELECT @@global.read_only AS ro', ['ro'], [0]],
  ['SELECT @@session.transaction_read_only', ['@@session.transaction_read_only'], [0]],
];

for (const [sql, names, row] of SELECTS) {
  test(`chatter: ${sql.slice(0, 60)}`, () => {
    const got = rows(chatter(sql, session()));
    assert.deepEqual(got.names, names);
    assert.deepEqual(got.rows, [row]);
  });
}

test('chatter: read-only mode shows in @@transaction_read_only and read_only', () => {
  const got = rows(chatter('SELECT @@transaction_read_only, @@read_only', session({ readOnly: true })));
  assert.deepEqual(got.rows, [[1, 1]]);
});

test('chatter: an unknown system variable is error 1193, as MySQL answers', () => {
  assert.deepEqual(chatter('SELECT @@nope', session()), {
    kind: 'error',
    code: 1193,
    message: "Unknown system variable 'nope'",
  });
});

test('chatter: SELECTs that read data go to the engine', () => {
  for (const sql of [
    'SELECT 1',
    'SELECT @@version, id FROM pg.t',
    'SELECT now()',
    'SELECT * FROM information_schema.tables',
  ])
    assert.equal(chatter(sql, session()), null, sql);
});

const OKS = [
  'SET NAMES utf8mb4',
  "SET NAMES 'utf8mb4' COLLATE 'utf8mb4_general_ci'",
  'SET character_set_results = NULL',
  'SET SESSION TRANSACTION ISOLATION LEVEL READ COMMITTED',
];

const TRANSACTIONS: [string, unknown][] = [
  ['BEGIN', { op: 'begin' }],
  ['START TRANSACTION READ ONLY', { op: 'begin' }],
  ['start transaction with consistent snapshot, read write;', { op: 'begin' }],
  ['COMMIT', { op: 'commit', chain: false, release: false }],
  ['commit work and chain', { op: 'commit', chain: true, release: false }],
  ['COMMIT AND NO CHAIN', { op: 'commit', chain: false, release: false }],
  ['COMMIT RELEASE', { op: 'commit', chain: false, release: true }],
  ['commit and no chain no release', { op: 'commit', chain: false, release: false }],
  ['rollback', { op: 'rollback', chain: false, release: false }],
  ['ROLLBACK AND NO CHAIN', { op: 'rollback', chain: false, release: false }],
  ['ROLLBACK WORK AND NO CHAIN RELEASE', { op: 'rollback', chain: false, release: true }],
  ['ROLLBACK TO SAVEPOINT a1', { op: 'savepoint', action: 'rollback_to', name: 'a1' }],
  ['rollback work to `x y`', { op: 'savepoint', action: 'rollback_to', name: 'x y' }],
  ['SAVEPOINT s', { op: 'savepoint', action: 'savepoint', name: 's' }],
  ['RELEASE SAVEPOINT s', { op: 'savepoint', action: 'release', name: 's' }],
];
for (const [sql, statement] of TRANSACTIONS) {
  test(`chatter: ${sql} goes to the connection's transaction`, () => {
    assert.deepEqual(chatter(sql, session()), { kind: 'transaction', statement });
  });
}
for (const sql of ['COMMIT AND CHAIN RELEASE', 'ROLLBACK RELEASE NOW', 'BEGIN TRANSACTION']) {
  test(`chatter: ${sql} is a syntax error on the wire, not a pointer to the MySQL protocol`, () => {
    const a = chatter(sql, session());
    assert.equal(a?.kind, 'error');
    assert.equal(a.kind === 'error' && a.code, 1064);
  });
}

test('chatter: SET character_set_results = NULL keeps NULL (results as the columns hold them)', () => {
  assert.deepEqual(chatter('SET character_set_results = NULL', session()), {
    kind: 'set',
    vars: [['character_set_results', null]],
  });
});

for (const sql of OKS) {
  test(`chatter: ${sql} is acknowledged`, () => {
    const a = chatter(sql, session());
    assert.ok(a && (a.kind === 'ok' || a.kind === 'set'), JSON.stringify(a));
  });
}

test('chatter: SET remembers session variables that later SELECTs and SHOW VARIABLES read', () => {
  const a = chatter(
    "SET autocommit=1, @@session.sql_mode = 'ANSI_QUOTES', SESSION wait_timeout = 60",
    session(),
  );
  assert.deepEqual(a, {
    kind: 'set',
    vars: [
      ['autocommit', 1],
      ['sql_mode', 'ANSI_QUOTES'],
      ['wait_timeout', 60],
    ],
  });
  const s = session({ vars: new Map(a.kind === 'set' ? a.vars : []) });
  assert.deepEqual(rows(chatter('SELECT @@sql_mode', s)).rows, [['ANSI_QUOTES']]);
  assert.deepEqual(rows(chatter("SHOW VARIABLES LIKE 'wait_timeout'", s)).rows, [['wait_timeout', '60']]);
});

const SHOWS: [string, string[], unknown[][]][] = [
  [
    "SHOW VARIABLES LIKE 'lower_case_%'",
    ['Variable_name', 'Value'],
    [
      ['lower_case_file_system', 'OFF'],
      ['lower_case_table_names', '0'],
    ],
  ],
  ["SHOW SESSION VARIABLES LIKE 'autocommit'", ['Variable_name', 'Value'], [['autocommit', 'ON']]],
  [
    "SHOW VARIABLES WHERE Variable_name = 'max_allowed_packet' OR Variable_name = 'net_write_timeout'",
    ['Variable_name', 'Value'],
    [
      ['max_allowed_packet', '67108864'],
      ['net_write_timeout', '60'],
    ],
  ],
  [
    "SHOW COLLATION WHERE Charset = 'utf8mb4' AND Collation = 'utf8mb4_bin'",
    ['Collation', 'Charset', 'Id', 'Default', 'Compiled', 'Sortlen', 'Pad_attribute'],
    [['utf8mb4_bin', 'utf8mb4', 46, '', 'Yes', 1, 'PAD SPACE']],
  ],
  [
    "SHOW CHARACTER SET LIKE 'utf8mb4'",
    ['Charset', 'Description', 'Default collation', 'Maxlen'],
    [['utf8mb4', 'UTF-8 Unicode', 'utf8mb4_0900_ai_ci', 4]],
  ],
  ['SHOW WARNINGS', ['Level', 'Code', 'Message'], []],
];
for (const [sql, names, want] of SHOWS) {
  test(`chatter: ${sql}`, () => {
    const got = rows(chatter(sql, session()));
    assert.deepEqual(got.names, names);
    assert.deepEqual(got.rows, want);
  });
}

test('chatter: SHOW COLLATION and SHOW CHARACTER SET list utf8mb4 and binary', () => {
  const c = rows(chatter('SHOW COLLATION', session()));
  assert.ok(c.rows.some((r) => r[0] === 'utf8mb4_general_ci' && r[2] === 45));
  assert.ok(c.rows.some((r) => r[0] === 'binary' && r[2] === 63));
  const cs = rows(chatter('SHOW CHARSET', session()));
  assert.ok(cs.rows.some((r) => r[0] === 'utf8mb4'));
});

test('chatter: KILL, SHOW SCHEMAS, SHOW CREATE TABLE and SHOW INDEX become their actions', () => {
  assert.deepEqual(chatter('KILL QUERY 12', session()), { kind: 'kill', id: 12, query: true });
  assert.deepEqual(chatter('KILL 12', session()), { kind: 'kill', id: 12, query: false });
  assert.deepEqual(chatter("SHOW SCHEMAS LIKE 'p%'", session()), {
    kind: 'sql',
    sql: "SHOW DATABASES LIKE 'p%'",
  });
  assert.deepEqual(chatter('SHOW CREATE TABLE `my`.`orders`', session()), {
    kind: 'show_create_table',
    db: 'my',
    table: 'orders',
  });
  assert.deepEqual(chatter('SHOW INDEX FROM orders FROM my', session()), {
    kind: 'show_index',
    db: 'my',
    table: 'orders',
  });
});

test('chatter: an unsupported SHOW filter is a syntax error naming it', () => {
  const a = chatter('SHOW VARIABLES WHERE Value > 3', session());
  assert.equal(a?.kind, 'error');
});

test('bare strips leading comments and trailing semicolons; likeRegex follows LIKE', () => {
  assert.equal(bare('  /* x */ -- y\n SELECT 1 ;; '), 'SELECT 1');
  assert.equal(bare('/*!40101 SET NAMES utf8 */'), '/*!40101 SET NAMES utf8 */');
  assert.ok(likeRegex('max\\_%').test('max_allowed_packet'));
  assert.ok(!likeRegex('max\\_%').test('maxallowed'));
});

test('read-only mode refuses SET GLOBAL / PERSIST with 1290; a session SET is answered', () => {
  for (const sql of [
    'SET GLOBAL max_connections = 1',
    'SET @@global.max_connections = 1',
    'SET PERSIST x = 1',
  ])
    assert.equal((chatter(sql, session({ readOnly: true })) as { code?: number }).code, 1290, sql);
  assert.notEqual(chatter('SET GLOBAL max_connections = 1', session())?.kind, 'error');
  assert.notEqual(chatter('SET sql_mode = ""', session({ readOnly: true }))?.kind, 'error');
});

test('@@event_scheduler is OFF (DBeaver, Superset)', () => {
  assert.deepEqual(rows(chatter('SELECT @@event_scheduler', session())).rows, [['OFF']]);
});

test('SET NAMES / CHARACTER SET name the character set later statements are read in and results written in', () => {
  for (const [sql, cs] of [
    ['SET NAMES latin1', 'latin1'],
    ["SET NAMES 'utf8mb4' COLLATE 'utf8mb4_general_ci'", 'utf8mb4'],
    ['SET CHARACTER SET cp1251', 'cp1251'],
    ['SET NAMES DEFAULT', 'utf8mb4'],
  ]) {
    const a = chatter(sql, session());
    assert.deepEqual(
      a,
      {
        kind: 'set',
        vars: [
          ['character_set_client', cs],
          // SET CHARACTER SET leaves the connection's set to the database's, as MySQL.
          ['character_set_connection', /CHARACTER SET/.test(sql) ? 'utf8mb4' : cs],
          ['character_set_results', cs],
        ],
      },
      sql,
    );
  }
});
