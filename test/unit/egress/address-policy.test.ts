import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { checkAddress, classifyAddress } from '../../../src/egress/address-policy.js';

// Pure classification: nothing here opens a socket or resolves a name.

function expectRange(addr: string, range: string, pub = false) {
  const c = classifyAddress(addr);
  assert.equal(c.range, range, `${addr} should be ${range}, got ${c.range}`);
  assert.equal(c.public, pub, `${addr} public should be ${pub}`);
}

function allowed(addr: string, allowPrivate: boolean): boolean {
  return checkAddress(addr, { allowPrivate }).allowed;
}

describe('address classifier: IPv4', () => {
  test('public unicast is the only public class', () => {
    for (const a of ['8.8.8.8', '1.1.1.1', '93.184.216.34', '151.101.1.69']) expectRange(a, 'unicast', true);
  });
  test('loopback in every spelling', () => {
    for (const a of [
      '127.0.0.1',
      '127.255.255.254',
      '127.1',
      '2130706433',
      '0x7f000001',
      '0177.0.0.1',
      '0x7f.0.0.1',
    ]) {
      expectRange(a, 'loopback');
    }
  });
  test('RFC 1918 private ranges', () => {
    for (const a of [
      '10.0.0.1',
      '10.255.255.255',
      '172.16.0.1',
      '172.31.255.255',
      '192.168.0.1',
      '192.168.255.255',
    ]) {
      expectRange(a, 'private');
    }
    expectRange('172.15.255.255', 'unicast', true);
    expectRange('172.32.0.0', 'unicast', true);
  });
  test('link-local and cloud metadata', () => {
    expectRange('169.254.0.1', 'linkLocal');
    expectRange('169.254.255.255', 'linkLocal');
    expectRange('169.254.169.254', 'metadata');
    expectRange('169.254.170.2', 'metadata');
    expectRange('168.63.129.16', 'metadata');
    expectRange('100.100.100.200', 'metadata');
  });
  test('unspecified / this-network 0.0.0.0/8', () => {
    expectRange('0.0.0.0', 'unspecified');
    expectRange('0.1.2.3', 'unspecified');
    expectRange('0', 'unspecified');
  });
  test('CGNAT 100.64/10', () => {
    expectRange('100.64.0.1', 'carrierGradeNat');
    expectRange('100.127.255.255', 'carrierGradeNat');
    expectRange('100.63.255.255', 'unicast', true);
    expectRange('100.128.0.0', 'unicast', true);
  });
  test('multicast, broadcast, reserved', () => {
    expectRange('224.0.0.1', 'multicast');
    expectRange('239.255.255.250', 'multicast');
    expectRange('255.255.255.255', 'broadcast');
    expectRange('240.0.0.1', 'reserved');
    expectRange('192.0.0.8', 'reserved');
    expectRange('192.88.99.1', 'reserved');
  });
  test('documentation and benchmarking', () => {
    for (const a of ['192.0.2.1', '198.51.100.7', '203.0.113.200']) expectRange(a, 'documentation');
    expectRange('198.18.0.1', 'benchmarking');
    expectRange('198.19.255.255', 'benchmarking');
  });
  test('garbage is invalid, never public', () => {
    for (const a of ['', 'localhost', '256.1.1.1', '1.2.3.4.5', 'example.com', '::g']) {
      const c = classifyAddress(a);
      assert.equal(c.range, 'invalid', a);
      assert.equal(c.public, false);
    }
  });
});

describe('address classifier: IPv6', () => {
  test('global unicast inside 2000::/3 is public', () => {
    for (const a of ['2606:4700:4700::1111', '2001:4860:4860::8888', '2a00:1450::1'])
      expectRange(a, 'unicast', true);
  });
  test('space outside 2000::/3 that ipaddr.js calls unicast is reserved', () => {
    expectRange('4000::1', 'reserved');
    expectRange('1234::1', 'reserved');
  });
  test('loopback and unspecified, bracketed or not', () => {
    expectRange('::1', 'loopback');
    expectRange('[::1]', 'loopback');
    expectRange('0:0:0:0:0:0:0:1', 'loopback');
    expectRange('::', 'unspecified');
    expectRange('[::]', 'unspecified');
  });
  test('IPv4-mapped addresses are unwrapped first', () => {
    const c = classifyAddress('::ffff:127.0.0.1');
    assert.equal(c.range, 'loopback');
    assert.equal(c.via, 'ipv4Mapped');
    assert.equal(c.embedded, '127.0.0.1');
    expectRange('::ffff:7f00:1', 'loopback');
    expectRange('[::ffff:127.0.0.1]', 'loopback');
    expectRange('::ffff:10.0.0.1', 'private');
    expectRange('::ffff:169.254.169.254', 'metadata');
    expectRange('::ffff:0.0.0.0', 'unspecified');
    expectRange('::ffff:8.8.8.8', 'unicast', true);
  });
  test('IPv4-compatible and IPv4-translated forms are refused', () => {
    expectRange('::127.0.0.1', 'ipv4Compatible');
    expectRange('::8.8.8.8', 'ipv4Compatible');
    expectRange('::ffff:0:127.0.0.1', 'ipv4Translated');
  });
  test('NAT64 64:ff9b::/96 is classified by the IPv4 it carries', () => {
    const lo = classifyAddress('64:ff9b::127.0.0.1');
    assert.equal(lo.range, 'loopback');
    assert.equal(lo.via, 'nat64');
    assert.equal(lo.public, false);
    expectRange('64:ff9b::a00:1', 'private');
    expectRange('64:ff9b::169.254.169.254', 'metadata');
    expectRange('64:ff9b::808:808', 'nat64', true);
    expectRange('64:ff9b:1::1', 'reserved');
  });
  test('6to4 2002::/16 is classified by its embedded IPv4 and never public', () => {
    const lo = classifyAddress('2002:7f00:1::1');
    assert.equal(lo.range, 'loopback');
    assert.equal(lo.via, '6to4');
    expectRange('2002:a9fe:a9fe::1', 'metadata');
    expectRange('2002:c0a8:101::1', 'private');
    expectRange('2002:808:808::1', '6to4');
  });
  test('Teredo 2001::/32', () => {
    expectRange('2001::1', 'teredo');
    expectRange('2001:0:4136:e378:8000:63bf:3fff:fdd2', 'teredo');
  });
  test('unique local, link-local, site-local, multicast', () => {
    expectRange('fc00::1', 'uniqueLocal');
    expectRange('fdff:ffff::1', 'uniqueLocal');
    expectRange('fe80::1', 'linkLocal');
    expectRange('fe80::1%eth0', 'linkLocal');
    expectRange('febf::1', 'linkLocal');
    expectRange('fec0::1', 'siteLocal');
    expectRange('ff02::1', 'multicast');
    expectRange('ff0e::1', 'multicast');
  });
  test('cloud metadata over IPv6 (AWS fd00:ec2::254)', () => {
    expectRange('fd00:ec2::254', 'metadata');
    expectRange('fd00:ec2::23', 'metadata');
  });
  test('documentation, benchmarking, discard', () => {
    expectRange('2001:db8::1', 'documentation');
    expectRange('3fff::1', 'documentation');
    expectRange('2001:2::1', 'benchmarking');
    expectRange('100::1', 'discard');
  });
});

describe('address policy', () => {
  test('public addresses pass either way', () => {
    for (const a of ['8.8.8.8', '2606:4700:4700::1111', '::ffff:8.8.8.8', '64:ff9b::808:808']) {
      assert.equal(allowed(a, false), true, a);
      assert.equal(allowed(a, true), true, a);
    }
  });
  test('without allowPrivate every non-public class is refused', () => {
    for (const a of [
      '127.0.0.1',
      '::1',
      '10.1.2.3',
      '172.16.0.1',
      '192.168.1.1',
      'fc00::1',
      '::ffff:127.0.0.1',
      '100.64.0.1',
      '169.254.169.254',
      '0.0.0.0',
      '::',
      '224.0.0.1',
      '255.255.255.255',
      '192.0.2.1',
      '2001::1',
      '2002:7f00:1::1',
    ]) {
      assert.equal(allowed(a, false), false, a);
    }
  });
  test('allowPrivate admits loopback and private ranges only', () => {
    for (const a of [
      '127.0.0.1',
      '127.5.6.7',
      '::1',
      '10.0.0.1',
      '172.16.0.1',
      '172.31.0.1',
      '192.168.0.1',
      'fc00::1',
      'fd12:3456::1',
      '::ffff:127.0.0.1',
      '::ffff:192.168.1.1',
    ]) {
      assert.equal(allowed(a, true), true, a);
    }
  });
  test('allowPrivate never admits link-local, metadata, unspecified or other special ranges', () => {
    for (const a of [
      '169.254.169.254',
      '169.254.1.1',
      'fe80::1',
      'fd00:ec2::254',
      '::ffff:169.254.169.254',
      '0.0.0.0',
      '0.1.2.3',
      '::',
      '100.64.0.1',
      '224.0.0.1',
      'ff02::1',
      '255.255.255.255',
      '240.0.0.1',
      '192.0.2.1',
      '198.18.0.1',
      '2001:db8::1',
      '2001::1',
      '::127.0.0.1',
      'fec0::1',
      'not-an-ip',
    ]) {
      assert.equal(allowed(a, true), false, a);
    }
  });
  test('allowPrivate does not admit private targets reached through NAT64 or 6to4 prefixes', () => {
    assert.equal(allowed('64:ff9b::7f00:1', true), false);
    assert.equal(allowed('64:ff9b::a00:1', true), false);
    assert.equal(allowed('2002:7f00:1::1', true), false);
    assert.equal(allowed('2002:808:808::1', true), false);
  });
});
