/**
 * Superset's MySQL time grains (superset/db_engine_specs/mysql.py), as Superset sends them over
 * mysqlclient: `SELECT <grain> AS __timestamp, COUNT(*) ... GROUP BY <grain>`, with its
 * STR_TO_DATE time-range filter, on a DATE and a DATETIME column of a PostgreSQL and a MariaDB
 * source. The oracle is MariaDB itself, holding the same rows.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import mysql from 'mysql2/promise';
import { mariaParams, pgParams, startTestServer, type TestServer } from '../../helpers/server.js';
import { createMariaDatabase, createPgDatabase, MARIADB, mariaExec, pgExec } from '../../helpers/services.js';

const GRAINS: Record<string, string> = {
  PT1S: 'DATE_ADD(DATE({col}), INTERVAL (HOUR({col})*60*60 + MINUTE({col})*60 + SECOND({col})) SECOND)',
  PT1M: 'DATE_ADD(DATE({col}), INTERVAL (HOUR({col})*60 + MINUTE({col})) MINUTE)',
  PT1H: 'DATE_ADD(DATE({col}), INTERVAL HOUR({col}) HOUR)',
  P1D: 'DATE({col})',
  P1W: 'DATE(DATE_SUB({col}, INTERVAL DAYOFWEEK({col}) - 1 DAY))',
  P1M: 'DATE(DATE_SUB({col}, INTERVAL DAYOFMONTH({col}) - 1 DAY))',
  'P0.25Y': 'MAKEDATE(YEAR({col}), 1) + INTERVAL QUARTER({col}) QUARTER - INTERVAL 1 QUARTER',
  P1Y: 'DATE(DATE_SUB({col}, INTERVAL DAYOFYEAR({col}) - 1 DAY))',
  '1969-12-29T00:00:00Z/P1W':
    'DATE(DATE_SUB({col}, INTERVAL DAYOFWEEK(DATE_SUB({col}, INTERVAL 1 DAY)) - 1 DAY))',
};

/** 40 events spread over 2023-2024, hours and minutes varied, so every grain has several buckets. */
function events(): string {
  const rows: string[] = [];
  for (let i = 0; i < 40; i++) {
    const d = new Date(Date.UTC(2023, 10, 3) + i * 19 * 86_400_000 + i * 3_727_000);
    const iso = d.toISOString();
    rows.push(`(${i}, '${iso.slice(0, 10)}', '${iso.slice(0, 19).replace('T', ' ')}')`);
  }
  return rows.join(', ');
}

let server: TestServer;
let oracle: mysql.Connection;
let client: mysql.Connection;
const drops: Array<() => Promise<void>> = [];

before(async () => {
  const pgdb = await createPgDatabase('grains');
  const maria = await createMariaDatabase('grains');
  const oracleDb = await createMariaDatabase('grains_oracle');
  drops.push(pgdb.drop, maria.drop, oracleDb.drop);
  await pgExec(
    pgdb.database,
    `CREATE TABLE events (id int PRIMARY KEY, day date, ts timestamp); INSERT INTO events VALUES ${events()};`,
  );
  for (const db of [maria.database, oracleDb.database]) {
    await mariaExec(
      db,
      `CREATE TABLE events (id int PRIMARY KEY, day date, ts datetime); INSERT INTO events VALUES ${events()};`,
    );
  }
  server = await startTestServer();
  for (const sql of [
    `CREATE DATABASE pgs WITH ENGINE = 'postgres', PARAMETERS = ${pgParams(pgdb.database)}`,
    `CREATE DATABASE mys WITH ENGINE = 'mariadb', PARAMETERS = ${mariaParams(maria.database)}`,
  ]) {
    const r = await server.sql(sql);
    assert.equal(r.type, 'ok', JSON.stringify(r));
  }
  assert.ok(server.mysql);
  client = await mysql.createConnection({
    host: '127.0.0.1',
    port: server.mysql.port,
    user: 'superset',
    dateStrings: true,
  });
  oracle = await mysql.createConnection({ ...MARIADB, database: oracleDb.database, dateStrings: true });
});

after(async () => {
  await client?.end();
  await oracle?.end();
  await server?.stop();
  for (const drop of drops) await drop();
});

function chartSql(table: string, col: string, grain: string): string {
  const expr = grain.replaceAll('{col}', col);
  return `SELECT ${expr} AS __timestamp, COUNT(*) AS count FROM ${table}
    WHERE ${col} >= STR_TO_DATE('2023-12-01 00:00:00', '%Y-%m-%d %H:%i:%s')
      AND ${col} < STR_TO_DATE('2025-01-01 00:00:00', '%Y-%m-%d %H:%i:%s')
    GROUP BY ${expr} ORDER BY __timestamp LIMIT 10000`;
}

describe("Superset's MySQL time grains through the listener equal MariaDB's", () => {
  for (const source of ['pgs', 'mys']) {
    for (const col of ['day', 'ts']) {
      test(`${source}.events.${col}: every grain`, async () => {
        for (const [name, grain] of Object.entries(GRAINS)) {
          const [want] = await oracle.query({ sql: chartSql('events', col, grain), rowsAsArray: true });
          const [got] = await client.query({
            sql: chartSql(`${source}.events`, col, grain),
            rowsAsArray: true,
          });
          // DATE_ADD on a DATE with a clock unit is a DATETIME in MySQL; compare the text the client sees.
          assert.deepEqual(
            (got as unknown[][]).map((r) => r.map(String)),
            (want as unknown[][]).map((r) => r.map(String)),
            `${name} on ${source}.events.${col}`,
          );
        }
      });
    }
  }
});
