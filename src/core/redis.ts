/**
 * The one way this server connects to Redis (TRIBUTARY_REDIS_URL): shared rate limits
 * (auth/limiters.ts) and shared MCP result handles (mcp/redis-handles.ts) use it.
 */
import { Redis } from 'ioredis';
import type { Logger } from 'pino';

/**
 * Commands fail at once while disconnected (no offline queue), so a caller falls back or answers
 * an error without delay; reconnects are retried every 0.2 … 2 s. The URL may hold a password:
 * logs name only `what` ("rate-limit") and the state.
 */
export function openRedis(url: string, logger: Logger, what: string): Redis {
  const client = new Redis(url, {
    enableOfflineQueue: false,
    maxRetriesPerRequest: 1,
    connectTimeout: 2_000,
    retryStrategy: (times) => Math.min(times * 200, 2_000),
  });
  let down = false;
  client.on('error', (err: Error) => {
    if (!down) logger.warn({ err: err.message }, `${what} Redis unavailable`);
    down = true;
  });
  client.on('ready', () => {
    if (down) logger.info(`${what} Redis reconnected`);
    down = false;
  });
  return client;
}

/** Resolves true once the client answers (false after `timeoutMs`). */
export function redisReady(r: Redis, timeoutMs = 5_000): Promise<boolean> {
  if (r.status === 'ready') return Promise.resolve(true);
  return new Promise((resolve) => {
    const done = (ok: boolean) => {
      clearTimeout(timer);
      r.off('ready', onReady);
      resolve(ok);
    };
    const onReady = () => done(true);
    const timer = setTimeout(() => done(false), timeoutMs);
    r.once('ready', onReady);
  });
}

/** Quit politely; a client that cannot is disconnected. Errors after this are not logged. */
export async function closeRedis(r: Redis): Promise<void> {
  r.removeAllListeners('error');
  r.on('error', () => {});
  await r.quit().catch(() => r.disconnect());
}
