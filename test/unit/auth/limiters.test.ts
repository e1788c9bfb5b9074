import assert from 'node:assert/strict';
import { type ChildProcess, spawn } from 'node:child_process';
import net from 'node:net';
import { Writable } from 'node:stream';
import { after, before, describe, test } from 'node:test';
import pino from 'pino';
import { LimiterStore } from '../../../src/auth/limiters.js';
import { ensureService, REDIS, uniqueName } from '../../helpers/services.js';

const logs: string[] = [];
const logger = pino(
  { level: 'debug' },
  new Writable({
    write(chunk, _e, cb) {
      logs.push(String(chunk));
      cb();
    },
  }),
);

async function freePort(): Promise<number> {
  return new Promise((resolve) => {
    const s = net.createServer();
    s.listen(0, '127.0.0.1', () => {
      const port = (s.address() as net.AddressInfo).port;
      s.close(() => resolve(port));
    });
  });
}

describe('LimiterStore in memory', () => {
  test('allows the points, then refuses with a retry delay', async () => {
    const store = new LimiterStore(null, logger);
    assert.equal(store.shared, false);
    const l = store.create({ name: uniqueName('m'), points: 3, durationS: 60 });
    for (let i = 0; i < 3; i++) assert.equal((await l.consume('k')).allowed, true);
    const d = await l.consume('k');
    assert.equal(d.allowed, false);
    assert.ok(!d.allowed && d.retryAfterS >= 1 && d.retryAfterS <= 60);
    assert.equal((await l.consume('other')).allowed, true, 'keys are counted apart');
    await l.reset('k');
    assert.equal((await l.consume('k')).allowed, true);
    await store.close();
  });
});

describe('LimiterStore on Redis', () => {
  before(() => ensureService('redis'));

  test('two stores on one Redis share one count', async () => {
    const url = `redis://${REDIS.host}:${REDIS.port}`;
    const a = new LimiterStore(url, logger);
    const b = new LimiterStore(url, logger);
    const name = uniqueName('shared');
    const la = a.create({ name, points: 4, durationS: 60 });
    const lb = b.create({ name, points: 4, durationS: 60 });
    // Both connected, so the first calls are not answered by the insurance limiter.
    assert.equal(await a.ready(), true);
    assert.equal(await b.ready(), true);
    assert.equal((await la.consume('k')).allowed, true);
    assert.equal((await lb.consume('k')).allowed, true);
    assert.equal((await la.consume('k')).allowed, true);
    assert.equal((await lb.consume('k')).allowed, true);
    assert.equal((await la.consume('k')).allowed, false);
    assert.equal((await lb.consume('k')).allowed, false);
    await la.reset('k');
    await a.close();
    await b.close();
  });

  describe('when Redis goes away', () => {
    let server: ChildProcess;
    let port: number;
    before(async () => {
      port = await freePort();
      server = spawn(
        'redis-server',
        ['--bind', '127.0.0.1', '--port', String(port), '--save', '', '--appendonly', 'no'],
        { stdio: 'ignore' },
      );
      for (let i = 0; i < 100; i++) {
        const up = await new Promise<boolean>((r) => {
          const s = net.connect({ host: '127.0.0.1', port }, () => {
            s.destroy();
            r(true);
          });
          s.once('error', () => r(false));
        });
        if (up) return;
        await new Promise((r) => setTimeout(r, 50));
      }
      throw new Error('private redis-server did not start');
    });
    after(() => {
      if (server.exitCode === null) server.kill('SIGKILL');
    });

    test('limits keep holding in memory, without logging the URL', async () => {
      const url = `redis://:very-secret-redis-pw@127.0.0.1:${port}`;
      const store = new LimiterStore(`redis://127.0.0.1:${port}`, logger);
      const l = store.create({ name: uniqueName('ins'), points: 2, durationS: 60 });
      assert.equal(await store.ready(), true);
      assert.equal((await l.consume('k')).allowed, true);
      server.kill('SIGKILL');
      await new Promise((r) => server.once('exit', r));
      await new Promise((r) => setTimeout(r, 100));
      // Redis is gone: the insurance limiter answers, quickly and with the same limit.
      assert.equal((await l.consume('k')).allowed, true);
      assert.equal((await l.consume('k')).allowed, true);
      assert.equal((await l.consume('k')).allowed, false);
      await store.close();

      // A store whose Redis never answers still limits, and never logs its URL.
      const dead = new LimiterStore(url, logger);
      const ld = dead.create({ name: uniqueName('dead'), points: 1, durationS: 60 });
      assert.equal((await ld.consume('k')).allowed, true);
      assert.equal((await ld.consume('k')).allowed, false);
      assert.equal(await dead.ready(300), false);
      await dead.close();
      const all = logs.join('');
      assert.match(all, /rate-limit Redis unavailable/);
      assert.ok(!all.includes('very-secret-redis-pw'));
    });
  });
});
