/** A rest_api source stored with default_headers in the clear (before they were secret) is sealed when the server starts. */
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { EmbeddedCatalogStore } from '../../../src/catalog/embedded-store.js';
import { startServer } from '../../../src/cli/start.js';
import { loadConfig } from '../../../src/config/load.js';
import { createLogger } from '../../../src/core/logger.js';

test('start-up seals default_headers stored in the clear; the source still works', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'tributary-seal-'));
  try {
    const config = await loadConfig({
      argv: { port: 0 },
      env: { TRIBUTARY_STORAGE_DIR: dir, TRIBUTARY_HTTP_HOST: '127.0.0.1', TRIBUTARY_MYSQL_PORT: '0' },
    });
    const value = `hdr-${randomUUID()}`;
    const old = new EmbeddedCatalogStore({ storageDir: dir, secretKey: config.secretKey, pollMs: 0 });
    await old.init();
    await old.createSource(
      {
        id: randomUUID(),
        name: 'crm',
        engine: 'rest_api',
        params: {
          base_url: 'http://127.0.0.1:9/',
          bearer_token: 'tok-123',
          default_headers: { 'X-Key': value },
        },
        createdAt: new Date().toISOString(),
      },
      ['bearer_token'],
    );
    await old.close();
    assert.ok(readFileSync(join(dir, 'catalog.json'), 'utf8').includes(value));
    const running = await startServer(config, { logger: createLogger('silent') });
    try {
      assert.ok(!readFileSync(join(dir, 'catalog.json'), 'utf8').includes(value));
      const rec = await running.deps.catalog.getSource('crm');
      assert.deepEqual(rec?.params.default_headers, { 'X-Key': value });
    } finally {
      await running.close();
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
