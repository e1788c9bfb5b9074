import type { Redis } from 'ioredis';
import type { Logger } from 'pino';
import {
  type RateLimiterAbstract,
  RateLimiterMemory,
  RateLimiterRedis,
  RateLimiterRes,
} from 'rate-limiter-flexible';
import { closeRedis, openRedis, redisReady } from '../core/redis.js';

export interface LimiterSpec {
  /** Part of the Redis key, so limits of different kinds never share a counter. */
  name: string;
  points: number;
  durationS: number;
  /** Once the points are spent, refuse for this long (defaults to the rest of the window). */
  blockS?: number;
}

export type LimitDecision = { allowed: true; remaining: number } | { allowed: false; retryAfterS: number };

/**
 * Rate limiters held in memory, or in Redis when TRIBUTARY_REDIS_URL is set so replicas
 * share one count. Each Redis limiter is insured by an in-memory one: if Redis goes away
 * the limits still hold (per process) instead of failing open or refusing everyone.
 */
export class LimiterStore {
  private readonly redis: Redis | null;

  constructor(
    redisUrl: string | null,
    private readonly logger: Logger,
  ) {
    this.redis = redisUrl ? this.connect(redisUrl) : null;
  }

  get shared(): boolean {
    return this.redis !== null;
  }

  /** Resolves true once Redis answers (false after `timeoutMs`, or without Redis). */
  async ready(timeoutMs = 5_000): Promise<boolean> {
    return this.redis ? redisReady(this.redis, timeoutMs) : false;
  }

  /** While Redis is away the in-memory insurance limiter counts (per process). */
  private connect(url: string): Redis {
    return openRedis(url, this.logger, 'rate-limit');
  }

  create(spec: LimiterSpec): Limiter {
    const base = {
      points: spec.points,
      duration: spec.durationS,
      blockDuration: spec.blockS ?? 0,
    };
    const memory = new RateLimiterMemory({ ...base, keyPrefix: `tributary:${spec.name}` });
    const limiter: RateLimiterAbstract = this.redis
      ? new RateLimiterRedis({
          ...base,
          storeClient: this.redis,
          keyPrefix: `tributary:rl:${spec.name}`,
          rejectIfRedisNotReady: true,
          insuranceLimiter: memory,
        })
      : memory;
    return new Limiter(limiter, spec.points, this.logger);
  }

  async close(): Promise<void> {
    if (this.redis) await closeRedis(this.redis);
  }
}

export class Limiter {
  constructor(
    private readonly impl: RateLimiterAbstract,
    readonly points: number,
    private readonly logger: Logger,
  ) {}

  /** Spends one point for `key`. */
  async consume(key: string): Promise<LimitDecision> {
    try {
      const res = await this.impl.consume(key);
      return { allowed: true, remaining: res.remainingPoints };
    } catch (e) {
      if (e instanceof RateLimiterRes) return { allowed: false, retryAfterS: retryAfter(e) };
      // Neither Redis nor the insurance answered: do not lock everyone out over a limiter fault.
      this.logger.error({ err: (e as Error)?.message }, 'rate limiter failed; request allowed');
      return { allowed: true, remaining: 0 };
    }
  }

  /** Whether `key` has points left, without spending one. */
  async check(key: string): Promise<LimitDecision> {
    try {
      const res = await this.impl.get(key);
      if (res && res.consumedPoints >= this.points) return { allowed: false, retryAfterS: retryAfter(res) };
      return { allowed: true, remaining: res ? res.remainingPoints : this.points };
    } catch (e) {
      this.logger.error({ err: (e as Error)?.message }, 'rate limiter failed; request allowed');
      return { allowed: true, remaining: 0 };
    }
  }

  async reset(key: string): Promise<void> {
    await this.impl.delete(key).catch(() => {});
  }
}

function retryAfter(res: RateLimiterRes): number {
  return Math.max(1, Math.ceil(res.msBeforeNext / 1000));
}
