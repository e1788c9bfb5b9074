import { createHash, randomBytes } from 'node:crypto';
import type { Redis } from 'ioredis';
import { redisReady } from '../core/redis.js';
import type { RestOfRows } from '../sql/engine-types.js';
import {
  collectRows,
  HANDLE_SHARE,
  type HandleLimits,
  type HandlePage,
  type HandleStore,
  type PageRange,
} from './handle-store.js';
import type { HandleView } from './truncation.js';

/** Every key of this store starts so (one Redis may serve rate limits and handles). */
export const HANDLE_KEY_PREFIX = 'tributary:rh:';

/** Rows are written in pushes of this many, before the handle is admitted. */
const PUSH_ROWS = 1000;

/**
 * Keys under the prefix P: `meta:<id>` (JSON: owner hash, columns, counts) and `rows:<id>` (a
 * list of row JSON texts) per handle; the books: `lru` (id → last use, ms), `of:<owner hash>`
 * (the same per principal), `owner` and `size` (id → owner hash, bytes) and `total` (bytes).
 * Only the scripts below change the books, each atomically, so the budget holds across replicas.
 * `meta` and `rows` also carry a Redis expiry (twice the TTL and a minute): a replica that dies
 * between writing rows and admitting them leaves nothing for long.
 */
const LIB = `
local P = ARGV[1]
local function drop(id)
  local owner = redis.call('HGET', P..'owner', id)
  if owner then redis.call('ZREM', P..'of:'..owner, id) end
  local size = tonumber(redis.call('HGET', P..'size', id) or '0')
  if size > 0 then redis.call('DECRBY', P..'total', size) end
  redis.call('HDEL', P..'owner', id)
  redis.call('HDEL', P..'size', id)
  redis.call('ZREM', P..'lru', id)
  redis.call('DEL', P..'meta:'..id, P..'rows:'..id)
end
local function sweep(now, ttl)
  for _, id in ipairs(redis.call('ZRANGEBYSCORE', P..'lru', '-inf', now - ttl)) do drop(id) end
end
`;

/** ARGV: P, id, owner hash, bytes, now, ttl, maxBytes, perPrincipal, meta JSON, key expiry ms. 1 admitted, 0 not. */
const ADMIT = `${LIB}
local id, owner, bytes, now, ttl = ARGV[2], ARGV[3], tonumber(ARGV[4]), tonumber(ARGV[5]), tonumber(ARGV[6])
local maxBytes, per, meta, pexp = tonumber(ARGV[7]), tonumber(ARGV[8]), ARGV[9], tonumber(ARGV[10])
sweep(now, ttl)
local mine = P..'of:'..owner
while redis.call('ZCARD', mine) >= per do drop(redis.call('ZRANGE', mine, 0, 0)[1]) end
while tonumber(redis.call('GET', P..'total') or '0') + bytes > maxBytes do
  local victim = redis.call('ZRANGE', P..'lru', 0, 0)[1]
  if not victim then return 0 end
  drop(victim)
end
redis.call('SET', P..'meta:'..id, meta, 'PX', pexp)
redis.call('PEXPIRE', P..'rows:'..id, pexp)
redis.call('ZADD', P..'lru', now, id)
redis.call('ZADD', mine, now, id)
redis.call('HSET', P..'owner', id, owner)
redis.call('HSET', P..'size', id, bytes)
redis.call('INCRBY', P..'total', bytes)
return 1
`;

/** ARGV: P, id, owner hash, now, ttl, offset, count, key expiry ms. {meta, rows} or nil. */
const PAGE = `${LIB}
local id, owner, now, ttl = ARGV[2], ARGV[3], tonumber(ARGV[4]), tonumber(ARGV[5])
local offset, count, pexp = tonumber(ARGV[6]), tonumber(ARGV[7]), tonumber(ARGV[8])
sweep(now, ttl)
if redis.call('HGET', P..'owner', id) ~= owner then return nil end
local meta = redis.call('GET', P..'meta:'..id)
if not meta then drop(id) return nil end
redis.call('ZADD', P..'lru', now, id)
redis.call('ZADD', P..'of:'..owner, now, id)
redis.call('PEXPIRE', P..'meta:'..id, pexp)
redis.call('PEXPIRE', P..'rows:'..id, pexp)
local rows = {}
if count > 0 then rows = redis.call('LRANGE', P..'rows:'..id, offset, offset + count - 1) end
return {meta, rows}
`;

interface Meta {
  /** sha256 of the owner's principal key: a token never reaches Redis. */
  o: string;
  c: string[];
  held: number;
  complete: boolean;
  moreThan: number;
}

type Scripted = Redis & {
  handleAdmit(...args: (string | number)[]): Promise<number>;
  handlePage(...args: (string | number)[]): Promise<[string, string[]] | null>;
};

/**
 * Result handles in Redis (TRIBUTARY_REDIS_URL), so replicas behind a load balancer without
 * sticky sessions page each other's handles (SPEC §13). The rules are handle-store.ts's; each
 * change of the books is one Lua script, so two replicas never overspend the budget together.
 * Rows are read once into this process within one handle's share (a quarter of max_bytes), then
 * pushed; a page reads only the rows it returns.
 */
export class RedisHandleStore implements HandleStore {
  private readonly redis: Scripted;

  constructor(
    redis: Redis,
    private readonly limits: HandleLimits,
    private readonly now: () => number = Date.now,
    private readonly prefix = HANDLE_KEY_PREFIX,
    /** Close the connection with the store (false when the caller shares it). */
    private readonly ownsConnection = true,
  ) {
    this.redis = redis as Scripted;
    if (!('handleAdmit' in redis)) {
      redis.defineCommand('handleAdmit', { numberOfKeys: 0, lua: ADMIT });
      redis.defineCommand('handlePage', { numberOfKeys: 0, lua: PAGE });
    }
  }

  /** Commands fail at once while disconnected (core/redis.ts): a new or reconnecting client gets a moment first. */
  private async connected(): Promise<void> {
    if (this.redis.status !== 'ready') await redisReady(this.redis, 2_000);
  }

  private get keyExpiryMs(): number {
    return this.limits.ttlMs * 2 + 60_000;
  }

  async keep(owner: string, rest: RestOfRows): Promise<HandleView | null> {
    const got = await collectRows(rest, Math.floor(this.limits.maxBytes / HANDLE_SHARE));
    if (!got) return null;
    await this.connected();
    const id = `r_${randomBytes(12).toString('base64url')}`;
    const rowsKey = `${this.prefix}rows:${id}`;
    for (let i = 0; i < got.rows.length; i += PUSH_ROWS) {
      const m = this.redis.multi().rpush(rowsKey, ...got.rows.slice(i, i + PUSH_ROWS));
      if (i === 0) m.pexpire(rowsKey, this.keyExpiryMs);
      await m.exec();
    }
    const view: HandleView = { id, held: got.rows.length, complete: got.complete, moreThan: got.moreThan };
    const meta: Meta = {
      o: ownerHash(owner),
      c: rest.column_names,
      held: view.held,
      complete: view.complete,
      moreThan: view.moreThan,
    };
    const admitted = await this.redis.handleAdmit(
      this.prefix,
      id,
      meta.o,
      got.bytes,
      this.now(),
      this.limits.ttlMs,
      this.limits.maxBytes,
      this.limits.perPrincipal,
      JSON.stringify(meta),
      this.keyExpiryMs,
    );
    if (admitted !== 1) {
      await this.redis.del(rowsKey);
      return null;
    }
    return view;
  }

  async page(owner: string, id: string, range: PageRange): Promise<HandlePage | null> {
    const count = Math.max(0, Math.min(range.count, 1_000_000_000));
    await this.connected();
    const got = await this.redis.handlePage(
      this.prefix,
      id,
      ownerHash(owner),
      this.now(),
      this.limits.ttlMs,
      range.offset,
      count,
      this.keyExpiryMs,
    );
    if (!got) return null;
    const meta = JSON.parse(got[0]) as Meta;
    // The rows of the range in their places; pageAnswer reads no others.
    const rows: string[] = new Array(meta.held);
    for (let i = 0; i < got[1].length; i++) rows[range.offset + i] = got[1][i];
    return {
      view: { id, held: meta.held, complete: meta.complete, moreThan: meta.moreThan },
      column_names: meta.c,
      rows,
    };
  }

  async usedBytes(): Promise<number> {
    await this.connected();
    return Number((await this.redis.get(`${this.prefix}total`)) ?? 0);
  }

  async close(): Promise<void> {
    if (!this.ownsConnection) return;
    this.redis.removeAllListeners('error');
    this.redis.on('error', () => {});
    await this.redis.quit().catch(() => this.redis.disconnect());
  }
}

function ownerHash(owner: string): string {
  return createHash('sha256').update(owner).digest('base64url');
}
