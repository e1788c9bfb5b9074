import assert from 'node:assert/strict';
import { test } from 'node:test';
import { Histogram, Registry } from 'prom-client';
import { TwoLabelHistogram } from '../../../src/observe/histogram.js';

const BOUNDS = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 300];
/** Values on, below and past the bounds, and a few label sets interleaved. */
const OBSERVED: [string, string, number][] = [
  ['SELECT', 'mysql', 0.0004],
  ['SELECT', 'http', 0.001],
  ['SELECT', 'mysql', 0.0011],
  ['INSERT', 'mcp', 0.25],
  ['SELECT', 'mysql', 301],
  ['other', 'http', 0],
  ['SELECT', 'mysql', 0.0025],
  ['INSERT', 'mcp', 7.5],
];

function lines(text: string): string[] {
  return text.split('\n').filter(Boolean).sort();
}

test('reads as prom-client Histogram reads, in Prometheus text and as JSON', async () => {
  const theirs = new Registry();
  const h = new Histogram({
    name: 'x_seconds',
    help: 'h',
    labelNames: ['kind', 'transport'],
    buckets: BOUNDS,
    registers: [theirs],
  });
  const ours = new Registry();
  let collected = 0;
  const t = new TwoLabelHistogram('x_seconds', 'h', ['kind', 'transport'], BOUNDS, ours, () => collected++);
  for (const [kind, transport, v] of OBSERVED) {
    h.observe({ kind, transport }, v);
    t.observe(kind, transport, v);
  }
  assert.deepEqual(lines(await ours.metrics()), lines(await theirs.metrics()));
  assert.ok(collected >= 1, 'collect runs before a read');
  const json = (r: Registry) =>
    r.getMetricsAsJSON().then((ms) =>
      ms.map((m) => ({
        ...m,
        values: [...m.values].sort((a, b) => (JSON.stringify(a) < JSON.stringify(b) ? -1 : 1)),
      })),
    );
  assert.deepEqual(await json(ours), await json(theirs));
  ours.resetMetrics();
  theirs.resetMetrics();
  assert.deepEqual(lines(await ours.metrics()), lines(await theirs.metrics()));
});
