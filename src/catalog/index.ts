import type { Logger } from 'pino';
import type { Config } from '../config/types.js';
import { EmbeddedCatalogStore } from './embedded-store.js';
import { PgCatalogStore, redactUrl } from './pg-store.js';
import type { CatalogStore } from './types.js';

export { EmbeddedCatalogStore } from './embedded-store.js';
export { PgCatalogStore } from './pg-store.js';
export { CatalogSecretError } from './sealed-params.js';

/** The catalog the config asks for (PostgreSQL when TRIBUTARY_CATALOG_URL is set), initialised. */
export async function openCatalog(config: Config, logger: Logger): Promise<CatalogStore> {
  const store: CatalogStore = config.catalogUrl
    ? new PgCatalogStore({ url: config.catalogUrl, secretKey: config.secretKey, logger })
    : new EmbeddedCatalogStore({ storageDir: config.storageDir, secretKey: config.secretKey, logger });
  try {
    await store.init();
  } catch (e) {
    await store.close().catch(() => {});
    throw e;
  }
  logger.debug(
    config.catalogUrl
      ? { catalog: 'postgres', url: redactUrl(config.catalogUrl) }
      : { catalog: 'embedded', dir: config.storageDir },
    'catalog opened',
  );
  return store;
}
