/** The in-memory result-handle store (one server) against the store contract. */
import { after } from 'node:test';
import type { HandleStore } from '../../../src/mcp/handle-store.js';
import { ResultHandles } from '../../../src/mcp/result-handles.js';
import { handleStoreContract } from './handle-store-contract.js';

const opened: HandleStore[] = [];
after(async () => {
  for (const s of opened) await s.close();
});

handleStoreContract('memory', async (limits, now = () => 0) => {
  const store = new ResultHandles({ maxBytes: 1 << 20, ttlMs: 600_000, perPrincipal: 16, ...limits }, now);
  opened.push(store);
  return { store, another: async () => store };
});
