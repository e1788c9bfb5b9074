/**
 * A Tributary server in its own process, configured only by its environment (as a replica
 * would be). Prints one JSON line {"url"} on stdout when listening; logs go to stderr;
 * SIGTERM closes it.
 */
import { loadConfig } from '../../../../src/config/load.js';
import { createLogger } from '../../../../src/core/logger.js';
import { start } from './server.js';

const config = await loadConfig({ argv: { port: 0 }, env: { TRIBUTARY_MYSQL_PORT: '0', ...process.env } });
const running = await start(config, createLogger(config.logLevel));
process.stdout.write(`${JSON.stringify({ url: running.url })}\n`);
process.once('SIGTERM', () => {
  running.close().finally(() => process.exit(0));
});
