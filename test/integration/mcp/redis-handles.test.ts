/**
 * The Redis result-handle store (replicas) against the store contract, on the loopback Redis:
 * each case gets its own key prefix (the branch name and a random part), removed afterwards.
 */
import { randomBytes } from 'node:crypto';
import { after, before } from 'node:test';
import { Redis } from 'ioredis';
import type { HandleStore } from '../../../src/mcp/handle-store.js';
import { RedisHandleStore } from '../../../src/mcp/redis-handles.js';
import { ensureService, REDIS } from '../../helpers/services.js';
import { handleStoreContract } from '../../unit/mcp/handle-store-contract.js';

const opened: HandleStore[] = [];
const prefixes: string[] = [];
let admin: Redis;

before(async () => {
  await ensureService('redis');
  admin = new Redis(REDIS);
});
after(async () => {
  for (const s of opened) await s.close();
  for (const p of prefixes) {
    const keys = await admin.keys(`${p}*`);
    if (keys.length) await admin.del(...keys);
  }
  await admin.quit();
});

handleStoreContract('redis', async (limits, now = () => 0) => {
  const prefix = `i30-drain:test:${randomBytes(6).toString('hex')}:`;
  prefixes.push(prefix);
  const full = { maxBytes: 1 << 20, ttlMs: 600_000, perPrincipal: 16, ...limits };
  const make = () => {
    const s = new RedisHandleStore(new Redis(REDIS), full, now, prefix);
    opened.push(s);
    return s;
  };
  return { store: make(), another: async () => make() };
});
