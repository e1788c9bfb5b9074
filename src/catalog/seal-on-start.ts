import type { Logger } from 'pino';
import { engines } from '../sources/registry.js';
import type { CatalogStore } from './types.js';

/**
 * At start-up, seal parameters that were stored in the clear before they became secret
 * (rest_api `default_headers`): an upgrade must not leave old secrets readable on disk.
 */
export async function sealStoredSecrets(store: CatalogStore, logger: Logger): Promise<void> {
  const n = await store.sealSecrets((engine) => engines.get(engine.toLowerCase())?.secrets ?? []);
  if (n > 0) logger.info({ sources: n }, 'sealed secret parameters that were stored in the clear');
}
