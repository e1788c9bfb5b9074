import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { EmbeddedCatalogStore } from '../../../src/catalog/embedded-store.js';
import { nextChange, sourceRecord } from '../../unit/catalog/store-contract.js';

const root = mkdtempSync(join(tmpdir(), 'tributary-catalog-mp-'));
after(() => rmSync(root, { recursive: true, force: true }));
const writer = fileURLToPath(new URL('./fixtures/catalog-writer.ts', import.meta.url));

function runWriter(dir: string, key: Buffer, prefix: string, count: number): Promise<void> {
  return new Promise((resolve, reject) => {
    const child = spawn(
      process.execPath,
      ['--import', 'tsx', writer, dir, key.toString('base64'), prefix, String(count)],
      { stdio: ['ignore', 'ignore', 'pipe'] },
    );
    let err = '';
    child.stderr.on('data', (d) => {
      err += d;
    });
    child.on('error', reject);
    child.on('exit', (code) => (code === 0 ? resolve() : reject(new Error(`writer exited ${code}: ${err}`))));
  });
}

describe('embedded catalog store across processes', () => {
  test('writes from two processes at once are all kept, and the other process is notified', async () => {
    const dir = mkdtempSync(join(root, 'c-'));
    const key = randomBytes(32);
    const store = new EmbeddedCatalogStore({ storageDir: dir, secretKey: key, pollMs: 50 });
    await store.init();
    try {
      const changed = nextChange(store);
      const own = Array.from({ length: 15 }, (_, i) =>
        store.createSource(sourceRecord(`parent${i}`, { password: `pw${i}` }), ['password']),
      );
      await Promise.all([runWriter(dir, key, 'childa', 15), runWriter(dir, key, 'childb', 15), ...own]);
      await changed;
      const names = (await store.listSources()).map((r) => r.name);
      assert.equal(names.length, 45);
      for (const p of ['parent', 'childa', 'childb']) {
        assert.equal(names.filter((n) => n.startsWith(p)).length, 15, p);
      }
      assert.equal((await store.getSource('childa7'))?.params.password, 'secret-childa-7');
      const text = readFileSync(join(dir, 'catalog.json'), 'utf8');
      assert.ok(!text.includes('secret-childa-7'));
    } finally {
      await store.close();
    }
  });
});
