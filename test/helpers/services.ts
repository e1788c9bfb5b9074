/**
 * Real local services for integration tests: PostgreSQL, MariaDB and Redis on loopback.
 * If one is down, start it (as the brief says); every test makes its own uniquely named
 * database and drops it afterwards.
 */
import { execSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import net from 'node:net';
import mysql from 'mysql2/promise';
import pg from 'pg';

export const PG = { host: '127.0.0.1', port: 5432, user: 'postgres', database: 'test' };
export const MARIADB = { host: '127.0.0.1', port: 3306, user: 'root', password: '', database: 'test' };
export const REDIS = { host: '127.0.0.1', port: 6379 };

function portOpen(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const s = net.connect({ host: '127.0.0.1', port });
    s.once('connect', () => {
      s.destroy();
      resolve(true);
    });
    s.once('error', () => resolve(false));
  });
}

async function waitPort(port: number, ms = 30000): Promise<void> {
  const end = Date.now() + ms;
  while (Date.now() < end) {
    if (await portOpen(port)) return;
    await new Promise((r) => setTimeout(r, 200));
  }
  throw new Error(`service on 127.0.0.1:${port} did not come up`);
}

const START: Record<string, string> = {
  postgres: 'pg_ctlcluster --skip-systemctl-redirect $(ls /etc/postgresql) main start',
  mariadb: 'start-stop-daemon --start --oknodo --background --exec /usr/sbin/mariadbd -- --user=mysql',
  redis: 'redis-server --daemonize yes --bind 127.0.0.1 --port 6379 --save "" --appendonly no',
};

export async function ensureService(name: 'postgres' | 'mariadb' | 'redis'): Promise<void> {
  const port = name === 'postgres' ? 5432 : name === 'mariadb' ? 3306 : 6379;
  if (await portOpen(port)) return;
  try {
    execSync(START[name], { stdio: 'ignore', shell: '/bin/bash' });
  } catch {
    // fall through to the wait, which names the service if it still is down
  }
  await waitPort(port);
}

export function uniqueName(prefix = 't'): string {
  return `${prefix}_${Date.now().toString(36)}_${randomBytes(3).toString('hex')}`;
}

/** A fresh PostgreSQL database; returns its name and a dropper. */
export async function createPgDatabase(
  prefix = 'trib',
): Promise<{ database: string; drop: () => Promise<void> }> {
  await ensureService('postgres');
  const database = uniqueName(prefix);
  const c = new pg.Client(PG);
  await c.connect();
  await c.query(`CREATE DATABASE "${database}"`);
  await c.end();
  return {
    database,
    drop: async () => {
      const d = new pg.Client(PG);
      await d.connect();
      await d.query(`DROP DATABASE IF EXISTS "${database}" WITH (FORCE)`);
      await d.end();
    },
  };
}

/** A fresh MariaDB database; returns its name and a dropper. */
export async function createMariaDatabase(
  prefix = 'trib',
): Promise<{ database: string; drop: () => Promise<void> }> {
  await ensureService('mariadb');
  const database = uniqueName(prefix);
  const c = await mysql.createConnection({ ...MARIADB, database: undefined });
  await c.query(`CREATE DATABASE \`${database}\``);
  await c.end();
  return {
    database,
    drop: async () => {
      const d = await mysql.createConnection({ ...MARIADB, database: undefined });
      await d.query(`DROP DATABASE IF EXISTS \`${database}\``);
      await d.end();
    },
  };
}

export async function pgExec(database: string, sql: string): Promise<void> {
  const c = new pg.Client({ ...PG, database });
  await c.connect();
  try {
    await c.query(sql);
  } finally {
    await c.end();
  }
}

export async function mariaExec(database: string, sql: string): Promise<void> {
  const c = await mysql.createConnection({ ...MARIADB, database, multipleStatements: true });
  try {
    await c.query(sql);
  } finally {
    await c.end();
  }
}
