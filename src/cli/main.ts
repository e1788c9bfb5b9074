#!/usr/bin/env node
import './threadpool.js';
import { clientSettings } from '../config/client.js';
import { ConfigError, loadConfig } from '../config/load.js';
import type { Config } from '../config/types.js';
import { createLogger } from '../core/logger.js';
import { COMMANDS, commandHelp, mainHelp, type Parsed, parseCommandLine, UsageError } from './commands.js';
import { VERSION } from './version.js';

/** A failure while the server or the stdio MCP server starts: the only kind that says so. */
class StartupError extends Error {}

function str(v: string | boolean | undefined): string | undefined {
  return typeof v === 'string' ? v : undefined;
}

async function configFor(p: Parsed): Promise<Config> {
  const v = p.values;
  const raw = str(v.port);
  const port = raw === undefined ? undefined : Number(raw);
  if (port !== undefined && (!Number.isInteger(port) || port < 0 || port > 65535))
    throw new UsageError(`Invalid --port '${raw}': expected an integer from 0 to 65535`, p.command);
  return loadConfig({
    argv: { config: str(v.config), host: str(v.host), port, demo: v.demo === true ? true : undefined },
  });
}

async function main(argv: string[]): Promise<number | undefined> {
  const p = parseCommandLine(argv);
  if (p.command === 'help') {
    const [name] = p.positionals;
    process.stdout.write(name ? commandHelp(name) : mainHelp());
    return 0;
  }
  if (p.values.help) {
    process.stdout.write(p.command === 'serve' ? mainHelp() : commandHelp(p.command));
    return 0;
  }
  if (p.values.version) {
    process.stdout.write(`${VERSION}\n`);
    return 0;
  }
  if (p.command === 'hash-password') {
    // Needs no configuration: it only hashes what it reads.
    const { runHashPassword } = await import('./hash-password-command.js');
    return runHashPassword();
  }
  const config = await configFor(p);
  switch (p.command) {
    case 'query': {
      const { runQueryCli } = await import('./query-command.js');
      return runQueryCli(config, p);
    }
    case 'sql': {
      const { runShell } = await import('./shell.js');
      return runShell(config, p);
    }
    case 'upload': {
      const { runUploadCommand } = await import('./upload-command.js');
      const client = clientSettings({ url: str(p.values.url), token: str(p.values.token) });
      return runUploadCommand(config, p.positionals, {
        ...client,
        format: str(p.values.format),
        sheet: str(p.values.sheet),
        types: str(p.values.types),
        delimiter: str(p.values.delimiter),
        replace: p.values.replace === true,
      });
    }
  }
  try {
    if (p.values['mcp-stdio']) await serveStdio(config);
    else await serveHttp(config);
  } catch (e) {
    if (e instanceof ConfigError) throw e;
    throw new StartupError((e as Error)?.message ?? String(e));
  }
  return undefined;
}

async function serveStdio(config: Config): Promise<void> {
  // Answer initialize/tools/list at once; the engine loads behind them (mcp/deferred-deps.ts).
  // Imported module by module: only what stdio uses is loaded (start-up time).
  const [{ createMcpServerFactory }, { deferredDeps }, { serveMcpStdio }] = await Promise.all([
    import('../mcp/server.js'),
    import('../mcp/deferred-deps.js'),
    import('../mcp/transports/stdio.js'),
  ]);
  const logger = createLogger(config.logLevel, 2, config.logFormat);
  const deps = deferredDeps({ config, logger, version: VERSION }, async () =>
    (await import('./start.js')).createDeps(config, logger),
  );
  await serveMcpStdio(deps, createMcpServerFactory(deps));
}

/** Past api.http.drain_ms, the cancelled statements' answers and the closing get this long. */
const CLOSE_LIMIT_MS = 8_000;

async function serveHttp(config: Config): Promise<void> {
  const [{ startServer }, { drainAndClose }] = await Promise.all([
    import('./start.js'),
    import('./drain.js'),
  ]);
  const running = await startServer(config);
  const log = running.deps.logger;
  if (process.stdout.isTTY) {
    const { banner } = await import('./banner.js');
    process.stdout.write(banner(running.url, config, VERSION));
  }
  let stopping = false;
  const shutdown = async (signal: string) => {
    if (stopping) {
      // A second signal: the operator does not want to wait.
      log.warn({ signal }, 'second signal: exiting now');
      process.exit(1);
    }
    stopping = true;
    log.info({ signal }, 'shutting down');
    const drainMs = config.api.http.drain_ms;
    // Nothing may keep the process past this, whatever hangs (a source that never answers).
    setTimeout(() => {
      log.error({ drain_ms: drainMs }, 'shutdown took longer than drain_ms + 8 s: exiting now');
      process.exit(1);
    }, drainMs + CLOSE_LIMIT_MS).unref();
    const report = await drainAndClose(running, drainMs, log);
    log.info({ signal, ms: report.ms, statements_cancelled: report.cancelled }, 'drained');
    process.exit(0);
  };
  process.on('SIGINT', () => void shutdown('SIGINT'));
  process.on('SIGTERM', () => void shutdown('SIGTERM'));
}

/** Exit codes: 0 ok, 1 a statement/request failed or a start-up failure, 2 wrong command line or configuration. */
function report(e: unknown): number {
  if (e instanceof UsageError) {
    const help =
      e.command && e.command in COMMANDS
        ? `tributary help ${e.command === 'serve' ? '' : e.command}`.trim()
        : 'tributary help';
    process.stderr.write(`tributary: ${e.message}\nRun '${help}' for usage.\n`);
    return 2;
  }
  if (e instanceof ConfigError) {
    process.stderr.write(`${e.message}\n`);
    return 2;
  }
  if (e instanceof StartupError) {
    process.stderr.write(`tributary failed to start: ${e.message}\n`);
    return 1;
  }
  process.stderr.write(`tributary: ${(e as Error)?.message ?? String(e)}\n`);
  return 1;
}

main(process.argv.slice(2)).then(
  (code) => {
    if (code !== undefined) process.exitCode = code;
  },
  (e) => {
    // Pools or timers a failed command left behind must not keep the process alive
    // (stderr is a synchronous write on files, terminals and pipes).
    process.exit(report(e));
  },
);
