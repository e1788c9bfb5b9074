import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import pino from 'pino';
import type { AppDeps } from '../../../src/http/deps.js';
import { deferredDeps } from '../../../src/mcp/deferred-deps.js';
import { createMcpServerFactory } from '../../../src/mcp/server.js';
import type { SqlEngine } from '../../../src/sql/engine-types.js';
import { testConfig } from '../../integration/mcp/helpers/app.js';

const logger = pino({ level: 'silent' });

function realDeps(calls: string[]): AppDeps {
  const engine = {
    listDatabases: async () => {
      calls.push('listDatabases');
      return ['files', 'pg'];
    },
    close: async () => {
      calls.push('engine.close');
    },
  } as unknown as SqlEngine;
  const catalog = {
    close: async () => {
      calls.push('catalog.close');
    },
  } as unknown as AppDeps['catalog'];
  return {
    config: testConfig(),
    logger,
    engine,
    catalog,
    sources: {} as AppDeps['sources'],
    version: '1',
    startedAt: 0,
  };
}

describe('deferredDeps', () => {
  test('servers can be built before the engine exists; engine calls wait for it', async () => {
    const calls: string[] = [];
    let release!: () => void;
    const gate = new Promise<void>((r) => {
      release = r;
    });
    const deps = deferredDeps(
      { config: testConfig({ read_only: true }), logger, version: '9.9' },
      async () => {
        await gate;
        return realDeps(calls);
      },
    );
    const server = createMcpServerFactory(deps)();
    assert.ok(server);
    const names = deps.engine.listDatabases();
    await new Promise((r) => setImmediate(r));
    assert.deepEqual(calls, []);
    release();
    assert.deepEqual(await names, ['files', 'pg']);
    await deps.ready;
    await deps.catalog.close();
    await deps.engine.close();
    assert.deepEqual(calls, ['listDatabases', 'catalog.close', 'engine.close']);
  });

  test('a failed load rejects ready and every engine call with its error', async () => {
    const deps = deferredDeps({ config: testConfig(), logger, version: '1' }, async () => {
      throw new Error('catalog is locked');
    });
    await assert.rejects(deps.ready, /catalog is locked/);
    await assert.rejects(deps.engine.listDatabases(), /catalog is locked/);
  });
});
