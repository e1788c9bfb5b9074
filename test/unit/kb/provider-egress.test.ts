/**
 * SPEC §8 "Providers' addresses", decided as pure functions: which addresses an embedding or
 * reranking provider may be reached at under the KB settings, and what a refusal says.
 * Private, link-local and metadata addresses appear here only as inputs: nothing here opens
 * a socket or resolves a name.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { checkAddress, refusalMessage } from '../../../src/egress/address-policy.js';
import { isHostAllowed } from '../../../src/egress/safe-url.js';
import { providerPolicy } from '../../../src/kb/embed/http.js';

const kb = (allowPrivate: boolean, allowedHosts: string[] = []) =>
  providerPolicy({ allowPrivate, allowedHosts, timeoutMs: 1000 });

type Want = 'allowed' | 'needs kb.allow_private_networks' | 'never';

/** Address → what the default KB settings decide, and what kb.allow_private_networks = true decides. */
const TABLE: [address: string, byDefault: Want, withPrivate: Want][] = [
  ['127.0.0.1', 'allowed', 'allowed'],
  ['127.0.0.2', 'allowed', 'allowed'],
  ['127.255.255.254', 'allowed', 'allowed'],
  ['::1', 'allowed', 'allowed'],
  ['[::1]', 'allowed', 'allowed'],
  ['::ffff:127.0.0.1', 'allowed', 'allowed'],
  ['8.8.8.8', 'allowed', 'allowed'],
  ['2606:4700::1111', 'allowed', 'allowed'],
  ['10.0.0.5', 'needs kb.allow_private_networks', 'allowed'],
  ['172.16.0.1', 'needs kb.allow_private_networks', 'allowed'],
  ['192.168.1.20', 'needs kb.allow_private_networks', 'allowed'],
  ['fd12:3456::1', 'needs kb.allow_private_networks', 'allowed'],
  ['::ffff:10.0.0.5', 'needs kb.allow_private_networks', 'allowed'],
  ['169.254.169.254', 'never', 'never'],
  ['169.254.170.2', 'never', 'never'],
  ['168.63.129.16', 'never', 'never'],
  ['100.100.100.200', 'never', 'never'],
  ['fd00:ec2::254', 'never', 'never'],
  ['169.254.1.1', 'never', 'never'],
  ['fe80::1', 'never', 'never'],
  ['::ffff:169.254.169.254', 'never', 'never'],
  ['0.0.0.0', 'never', 'never'],
  ['::', 'never', 'never'],
  ['100.64.0.1', 'never', 'never'],
  // Tunnelled forms of loopback and private addresses are never the local service they name.
  ['64:ff9b::7f00:1', 'never', 'never'],
  ['64:ff9b::a00:5', 'never', 'never'],
  ['2002:7f00:1::1', 'never', 'never'],
  ['::127.0.0.1', 'never', 'never'],
];

function decide(address: string, allowPrivate: boolean): Want {
  const policy = kb(allowPrivate);
  const v = checkAddress(address, policy);
  if (v.allowed) return 'allowed';
  const message = refusalMessage(address, true, v, policy);
  if (message.endsWith(': set kb.allow_private_networks = true to allow it'))
    return 'needs kb.allow_private_networks';
  assert.match(message, /, which is never allowed$/, message);
  return 'never';
}

describe('KB provider addresses (pure)', () => {
  test('each address under the default settings and with kb.allow_private_networks', () => {
    for (const [address, byDefault, withPrivate] of TABLE) {
      assert.equal(decide(address, false), byDefault, `${address} by default`);
      assert.equal(decide(address, true), withPrivate, `${address} with kb.allow_private_networks`);
    }
  });

  test('passthrough keeps its rule: loopback only with passthrough.allow_private_networks', () => {
    const policy = { allowPrivate: false, privateSetting: 'passthrough.allow_private_networks' };
    const v = checkAddress('127.0.0.1', policy);
    assert.equal(v.allowed, false);
    assert.equal(
      refusalMessage('127.0.0.1', true, v, policy),
      "host '127.0.0.1' is a loopback address: set passthrough.allow_private_networks = true to allow it",
    );
    assert.equal(checkAddress('127.0.0.1', { ...policy, allowPrivate: true }).allowed, true);
  });

  test('a refusal names the host, what it is or resolves to, and the setting', () => {
    const policy = kb(false);
    const v = checkAddress('10.0.0.5', policy);
    assert.equal(
      refusalMessage('10.0.0.5', true, v, policy),
      "host '10.0.0.5' is a private address: set kb.allow_private_networks = true to allow it",
    );
    // A name: the address it resolved to is not shown (a refusal must not map internal DNS).
    assert.equal(
      refusalMessage('embed.internal', false, v, policy),
      "host 'embed.internal' resolves to a private address: set kb.allow_private_networks = true to allow it",
    );
    const meta = checkAddress('169.254.169.254', kb(true));
    assert.equal(
      refusalMessage('169.254.169.254', true, meta, kb(true)),
      "host '169.254.169.254' is a cloud metadata address, which is never allowed",
    );
  });

  test('kb.allowed_hosts: empty admits any host; set, only those (names as written, not what they resolve to)', () => {
    const url = (h: string) => new URL(`http://${h}:11434/api/embed`);
    const any = kb(false).allowedHosts;
    for (const h of ['127.0.0.1', 'localhost', 'api.openai.com', '[::1]'])
      assert.equal(isHostAllowed(url(h), any), true, h);
    const only = kb(false, ['localhost', 'api.openai.com']).allowedHosts;
    const cases: [string, boolean][] = [
      ['localhost', true],
      ['LOCALHOST', true],
      ['localhost.', true],
      ['api.openai.com', true],
      ['127.0.0.1', false],
      ['127.0.0.2', false],
      ['[::1]', false],
      ['evil.example', false],
      ['api.openai.com.evil.example', false],
    ];
    for (const [h, want] of cases) assert.equal(isHostAllowed(url(h), only), want, h);
  });
});
