import type { McpServer } from '@modelcontextprotocol/server';
import { serveStdio } from '@modelcontextprotocol/server/stdio';
import type { McpDeps } from '../deps.js';
import type { SessionState } from '../query-tool.js';
import { SchemaAnnouncer } from '../schema-announcer.js';

/**
 * MCP over stdin/stdout (`tributary --mcp-stdio`). stdout carries nothing but MCP
 * messages (logs go to stderr). Resolves when the client closes stdin or the process is
 * told to stop, after the engine's pools are closed, so the process can exit.
 */
export async function serveMcpStdio(
  deps: McpDeps,
  factory: (session?: SessionState, era?: 'legacy' | 'modern') => McpServer,
): Promise<void> {
  const log = deps.logger.child({ component: 'mcp-stdio' });
  let finish!: () => void;
  const done = new Promise<void>((resolve) => {
    finish = resolve;
  });
  // The connection's server hears of schema changes; on a 2026-07-28 connection the SDK's
  // stdio entry turns its list_changed into events of the open `subscriptions/listen`.
  const announcer = new SchemaAnnouncer(deps.engine, log);
  const handle = serveStdio(
    (ctx) => {
      const server = factory({}, ctx.era);
      const untrack = announcer.track(server);
      const prev = server.server.onclose;
      server.server.onclose = () => {
        untrack();
        prev?.();
      };
      return server;
    },
    {
      onerror: (e) => log.warn({ err: e.message }, 'mcp stdio error'),
    },
  );
  let stopping = false;
  const stop = async (why: string) => {
    if (stopping) return;
    stopping = true;
    log.info({ reason: why }, 'mcp stdio stopping');
    announcer.close();
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
