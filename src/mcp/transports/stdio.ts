import type { McpServer } from '@modelcontextprotocol/server';
import { serveStdio } from '@modelcontextprotocol/server/stdio';
import type { McpDeps } from '../deps.js';

/**
 * MCP over stdin/stdout (`tributary --mcp-stdio`). stdout carries nothing but MCP
 * messages (logs go to stderr). Resolves when the client closes stdin or the process is
 * told to stop, after the engine's pools are closed, so the process can exit.
 */
export async function serveMcpStdio(deps: McpDeps, factory: () => McpServer): Promise<void> {
  const log = deps.logger.child({ component: 'mcp-stdio' });
  let finish!: () => void;
  const done = new Promise<void>((resolve) => {
    finish = resolve;
  });
  const handle = serveStdio(factory, {
    onerror: (e) => log.warn({ err: e.message }, 'mcp stdio error'),
  });
  let stopping = false;
  const stop = async (why: string) => {
    if (stopping) return;
    stopping = true;
    log.info({ reason: why }, 'mcp stdio stopping');
    await handle.close().catch(() => {});
    await Promise.allSettled([deps.engine.close(), deps.catalog.close()]);
    finish();
  };
  process.stdin.once('end', () => void stop('stdin closed'));
  process.stdin.once('close', () => void stop('stdin closed'));
  process.once('SIGINT', () => void stop('SIGINT'));
  process.once('SIGTERM', () => void stop('SIGTERM'));
  log.info({ version: deps.version }, 'mcp stdio ready');
  await done;
}
