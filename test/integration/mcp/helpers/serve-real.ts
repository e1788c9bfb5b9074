/**
 * Run the real server (MCP routes included) on a loopback port with a temporary storage
 * dir and a MariaDB source `shop`, for external MCP tools such as the conformance suite.
 * Usage: node --import tsx test/integration/mcp/helpers/serve-real.ts PORT [ENV=VALUE ...]
 */
import { createMariaDatabase, mariaExec } from '../../../helpers/services.js';
import { startRealServer } from './real-server.js';

const port = process.argv[2] ?? '0';
const env = Object.fromEntries(process.argv.slice(3).map((kv) => kv.split(/=(.*)/s).slice(0, 2)));
const db = await createMariaDatabase('mcp');
await mariaExec(
  db.database,
  "CREATE TABLE customers (id INT PRIMARY KEY, name VARCHAR(40)); INSERT INTO customers VALUES (1, 'Ada'), (2, 'Bob');",
);
const s = await startRealServer({ TRIBUTARY_HTTP_PORT: port, ...env });
const params = JSON.stringify({
  host: '127.0.0.1',
  port: 3306,
  user: 'root',
  password: '',
  database: db.database,
});
await s.sql(`CREATE DATABASE shop WITH ENGINE = 'mariadb', PARAMETERS = ${params}`);
process.stdout.write(`${s.url}\n`);
const stop = async () => {
  await s.stop();
  await db.drop();
  process.exit(0);
};
process.once('SIGINT', () => void stop());
process.once('SIGTERM', () => void stop());
