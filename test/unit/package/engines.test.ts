/**
 * `engines` says what really runs: every package in the lockfile accepts the oldest release
 * of each Node line we claim, so `npm install` prints no EBADENGINE on any of them.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { test } from 'node:test';
import semver from 'semver';

const root = new URL('../../../', import.meta.url);
const pkg = JSON.parse(readFileSync(new URL('package.json', root), 'utf8'));
const lock = JSON.parse(readFileSync(new URL('package-lock.json', root), 'utf8'));

/** The oldest release of each line the range admits (20.18.1, 22.0.0, 24.0.0, ...). */
function oldestOfEachLine(range: string): string[] {
  const out: string[] = [];
  for (let major = 18; major <= 30; major++) {
    const mins = range
      .split('||')
      .map((alt) => semver.minVersion(`${alt.trim()} >=${major}.0.0 <${major + 1}.0.0-0`))
      .filter((m): m is semver.SemVer => m !== null && semver.satisfies(m, range));
    if (mins.length) out.push(mins.sort(semver.compare)[0].version);
  }
  return out;
}

test('the engines range names Node 20, 22 and 24, and every locked package accepts each line', () => {
  const range: string = pkg.engines.node;
  const lines = oldestOfEachLine(range);
  for (const major of ['20', '22', '24'])
    assert.ok(
      lines.some((v) => v.startsWith(`${major}.`)),
      `${range} admits Node ${major}`,
    );
  const refused: string[] = [];
  for (const [path, p] of Object.entries(
    lock.packages as Record<string, { engines?: unknown; dev?: boolean }>,
  )) {
    const wants = (p.engines as { node?: unknown } | undefined)?.node;
    if (!path || typeof wants !== 'string') continue;
    for (const v of lines)
      if (!semver.satisfies(v, wants)) refused.push(`${path} wants node ${wants}, not ${v}`);
  }
  assert.deepEqual(refused, []);
});
