/**
 * Serve the MCP routes over MariaEngine on a loopback port, for running external MCP
 * tools (the conformance suite, the Inspector) before the full server is wired.
 * Usage: node --import tsx test/integration/mcp/helpers/serve-mcp.ts [port]
 */
import { startMcpApp } from './app.js';
import { createShopDatabase } from './fixture.js';
import { MariaEngine } from './maria-engine.js';

const db = await createShopDatabase();
const app = await startMcpApp(new MariaEngine([db.database]), {}, Number(process.argv[2] ?? 0));
process.stdout.write(`${app.url}\n`);
const stop = async () => {
  await app.close();
  await db.drop();
  process.exit(0);
};
process.once('SIGINT', () => void stop());
process.once('SIGTERM', () => void stop());
