import type { McpServer } from '@modelcontextprotocol/server';
import type { Logger } from 'pino';
import type { SqlEngine } from '../sql/engine-types.js';

/** A burst of changes (a script of DDL, a replica's sync) is announced once, this long after its last. */
export const ANNOUNCE_DEBOUNCE_MS = 200;

/** Where 2026-07-28 `subscriptions/listen` streams get their events (the SDK handler's `notify`). */
export interface ListenNotifier {
  resourcesChanged(): void;
}

/**
 * The live MCP servers to tell that the schema resources changed
 * (`notifications/resources/list_changed`): each 2025-era Streamable HTTP session, each legacy
 * SSE session and the stdio connection is tracked while it is open; 2026-07-28 clients get the
 * change on their open `subscriptions/listen` streams through the SDK's notifier. The engine's
 * onSchemaChanged feeds it: sources, tables (DDL run through Tributary), files and knowledge
 * bases, changed here or on another replica (start.ts wires the catalog's feeds in).
 */
export class SchemaAnnouncer {
  private readonly servers = new Set<McpServer>();
  private readonly notifiers = new Set<ListenNotifier>();
  private timer: NodeJS.Timeout | null = null;
  private readonly off: () => void;

  constructor(
    engine: SqlEngine,
    private readonly logger: Logger,
    private readonly debounceMs = ANNOUNCE_DEBOUNCE_MS,
  ) {
    this.off = engine.onSchemaChanged?.(() => this.changed()) ?? (() => {});
  }

  /** Track `server` until the returned function is called (its session ended). */
  track(server: McpServer): () => void {
    this.servers.add(server);
    return () => this.servers.delete(server);
  }

  /** Deliver to the `subscriptions/listen` streams of a 2026-era handler. */
  addListenNotifier(n: ListenNotifier): void {
    this.notifiers.add(n);
  }

  get trackedCount(): number {
    return this.servers.size;
  }

  /** A change happened: announce it once the burst it belongs to is over. */
  changed(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = setTimeout(() => {
      this.timer = null;
      this.announce();
    }, this.debounceMs);
    this.timer.unref();
  }

  private announce(): void {
    for (const server of this.servers) {
      if (!server.isConnected()) continue;
      try {
        server.sendResourceListChanged();
      } catch (e) {
        this.logger.debug({ err: (e as Error).message }, 'mcp: resource list change not sent');
      }
    }
    for (const n of this.notifiers) n.resourcesChanged();
  }

  close(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    this.off();
    this.servers.clear();
    this.notifiers.clear();
  }
}
