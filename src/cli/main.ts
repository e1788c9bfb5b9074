#!/usr/bin/env node
import './threadpool.js';
import { parseArgs } from 'node:util';
import { ConfigError, loadConfig } from '../config/load.js';
import { createLogger } from '../core/logger.js';
import { UPLOAD_HELP } from './upload-help.js';
import { VERSION } from './version.js';

const HELP = `tributary ${VERSION}: federated SQL (MySQL syntax) over databases, APIs and files, for AI agents

Usage:
  tributary [options]                 start the HTTP server (API + MCP) on 127.0.0.1:47334
  tributary --mcp-stdio [options]     serve MCP on stdin/stdout only (for MCP clients that spawn servers)
  tributary query "<SQL>" [--db src]  run one statement and print the result as a table (--json for JSON)
${UPLOAD_HELP}

Options:
  --host HOST        listen address (TRIBUTARY_HTTP_HOST, api.http.host)
  --port PORT        listen port (TRIBUTARY_HTTP_PORT, api.http.port)
  --config PATH      JSON config file (TRIBUTARY_CONFIG_PATH)
  --demo             add a read-only 'demo' source with a small sample dataset
  -h, --help         show this help
  -v, --version      print the version

Storage (catalog, uploads, key) lives in TRIBUTARY_STORAGE_DIR (default ~/.tributary).
Example:
  tributary --demo &
  curl -s localhost:47334/api/sql/query -H 'content-type: application/json' \\
    -d '{"query":"SELECT city, COUNT(*) AS n FROM demo.customers GROUP BY city ORDER BY n DESC"}'
`;

async function main(): Promise<void> {
  const { values, positionals } = parseArgs({
    allowPositionals: true,
    options: {
      host: { type: 'string' },
      port: { type: 'string' },
      config: { type: 'string' },
      demo: { type: 'boolean' },
      'mcp-stdio': { type: 'boolean' },
      db: { type: 'string' },
      json: { type: 'boolean' },
      url: { type: 'string' },
      token: { type: 'string' },
      format: { type: 'string' },
      sheet: { type: 'string' },
      replace: { type: 'boolean' },
      help: { type: 'boolean', short: 'h' },
      version: { type: 'boolean', short: 'v' },
    },
  });
  if (values.help) {
    process.stdout.write(HELP);
    return;
  }
  if (values.version) {
    process.stdout.write(`${VERSION}\n`);
    return;
  }
  const port = values.port === undefined ? undefined : Number(values.port);
  if (port !== undefined && (!Number.isInteger(port) || port < 0 || port > 65535)) {
    throw new ConfigError(`Invalid --port '${values.port}': expected an integer from 0 to 65535`);
  }
  const config = await loadConfig({
    argv: { config: values.config, host: values.host, port, demo: values.demo },
  });
  const command = positionals[0];

  if (command === 'query') {
    const sql = positionals.slice(1).join(' ');
    if (!sql) throw new ConfigError('Usage: tributary query "<SQL>" [--db source]');
    // The engine and its drivers load only for the commands that need them (stdio MCP
    // answers its first messages before they are loaded).
    const { closeDeps, createDeps } = await import('./start.js');
    const { runQueryCommand } = await import('./query-command.js');
    const deps = await createDeps(
      config,
      createLogger(config.logLevel === 'info' ? 'warn' : config.logLevel),
    );
    try {
      process.exitCode = await runQueryCommand(deps, sql, { db: values.db, json: !!values.json });
    } finally {
      await closeDeps(deps);
    }
    return;
  }
  if (command === 'upload') {
    const { runUploadCommand } = await import('./upload-command.js');
    process.exitCode = await runUploadCommand(config, positionals.slice(1), values);
    return;
  }
  if (command !== undefined) throw new ConfigError(`Unknown command '${command}'. Run tributary --help`);

  if (values['mcp-stdio']) {
    // Answer initialize/tools/list at once; the engine loads behind them (mcp/deferred-deps.ts).
    // Imported module by module: only what stdio uses is loaded (start-up time).
    const [{ createMcpServerFactory }, { deferredDeps }, { serveMcpStdio }] = await Promise.all([
      import('../mcp/server.js'),
      import('../mcp/deferred-deps.js'),
      import('../mcp/transports/stdio.js'),
    ]);
    const logger = createLogger(config.logLevel);
    const deps = deferredDeps({ config, logger, version: VERSION }, async () =>
      (await import('./start.js')).createDeps(config, logger),
    );
    await serveMcpStdio(deps, createMcpServerFactory(deps));
    return;
  }

  const { startServer } = await import('./start.js');
  const running = await startServer(config);
  const log = running.deps.logger;
  const shutdown = async (signal: string) => {
    log.info({ signal }, 'shutting down');
    await running.close().catch(() => {});
    process.exit(0);
  };
  process.once('SIGINT', () => void shutdown('SIGINT'));
  process.once('SIGTERM', () => void shutdown('SIGTERM'));
}

main().catch((e) => {
  const msg =
    e instanceof ConfigError ? e.message : `tributary failed to start: ${(e as Error)?.message ?? e}`;
  process.stderr.write(`${msg}\n`);
  process.exit(1);
});
