import ipaddr from 'ipaddr.js';

/**
 * Which addresses an outbound call may dial. Pure: no DNS, no sockets.
 *
 * Only public unicast is admitted. ipaddr.js's range names are the base; on top of them we
 * split out the ranges it lumps together (documentation, benchmarking), catch forms it calls
 * `unicast` but must not be (IPv4-compatible `::a.b.c.d`, IPv6 outside 2000::/3, cloud metadata
 * that lives in a public or ULA range), and look inside the tunnelling prefixes (NAT64, 6to4)
 * so `64:ff9b::7f00:1` is seen as the loopback it carries.
 */

export type AddressRange =
  | 'unicast'
  | 'private'
  | 'uniqueLocal'
  | 'loopback'
  | 'linkLocal'
  | 'metadata'
  | 'unspecified'
  | 'carrierGradeNat'
  | 'multicast'
  | 'broadcast'
  | 'reserved'
  | 'documentation'
  | 'benchmarking'
  | 'siteLocal'
  | 'discard'
  | 'teredo'
  | '6to4'
  | 'nat64'
  | 'ipv4Compatible'
  | 'ipv4Translated'
  | 'invalid'
  | (string & {});

export interface AddressClass {
  /** Canonical text of the address as given (IPv6 compressed, zone dropped). */
  address: string;
  family: 4 | 6;
  /** The range that decides; for tunnelled forms, the range of the embedded IPv4 when that is not public. */
  range: AddressRange;
  /** True only for public unicast. */
  public: boolean;
  /** How an IPv4 address was carried inside IPv6, when it was. */
  via?: 'ipv4Mapped' | 'nat64' | '6to4';
  /** The embedded IPv4 address for mapped / NAT64 / 6to4 forms. */
  embedded?: string;
}

type Table = Array<[range: AddressRange, cidr: [ipaddr.IPv4, number] | [ipaddr.IPv6, number]]>;

const v4 = (s: string): [ipaddr.IPv4, number] => ipaddr.IPv4.parseCIDR(s);
const v6 = (s: string): [ipaddr.IPv6, number] => ipaddr.IPv6.parseCIDR(s);

// Checked before ipaddr.js's own table, most specific first.
const IPV4_EXTRA: Table = [
  // AWS/GCP/Azure/OpenStack IMDS (169.254.169.254), ECS task metadata, Azure WireServer (public space, host-only).
  ['metadata', v4('169.254.169.254/32')],
  ['metadata', v4('169.254.170.2/32')],
  ['metadata', v4('168.63.129.16/32')],
  // Alibaba metadata lives in CGNAT space; named for clearer refusals.
  ['metadata', v4('100.100.100.200/32')],
  ['documentation', v4('192.0.2.0/24')],
  ['documentation', v4('198.51.100.0/24')],
  ['documentation', v4('203.0.113.0/24')],
  ['benchmarking', v4('198.18.0.0/15')],
];

const IPV6_EXTRA: Table = [
  // AWS Nitro IMDS / DNS / NTP (fd00:ec2::254 etc.): a ULA prefix that must stay refused even when private ranges are allowed.
  ['metadata', v6('fd00:ec2::/32')],
  ['documentation', v6('2001:db8::/32')],
  ['documentation', v6('3fff::/20')],
  ['benchmarking', v6('2001:2::/48')],
  ['teredo', v6('2001::/32')],
  ['discard', v6('100::/64')],
  ['ipv4Translated', v6('::ffff:0:0:0/96')],
  // RFC 8215 local-use NAT64: its translator is a local choice; never treat it as public.
  ['reserved', v6('64:ff9b:1::/48')],
  ['siteLocal', v6('fec0::/10')],
];

const NAT64 = v6('64:ff9b::/96');
const SIX_TO_FOUR = v6('2002::/16');
const IPV4_COMPATIBLE = v6('::/96');
const GLOBAL_UNICAST = v6('2000::/3');

function lookup(addr: ipaddr.IPv4 | ipaddr.IPv6, table: Table): AddressRange | null {
  for (const [range, cidr] of table) {
    // ipaddr.js types `match` per family; the kind check above makes the pair one family.
    if (addr.kind() === cidr[0].kind() && (addr as ipaddr.IPv4).match(cidr as [ipaddr.IPv4, number]))
      return range;
  }
  return null;
}

function classifyV4(addr: ipaddr.IPv4): AddressRange {
  const extra = lookup(addr, IPV4_EXTRA);
  if (extra) return extra;
  return addr.range() as AddressRange;
}

function embeddedV4(addr: ipaddr.IPv6, offsetBytes: number): ipaddr.IPv4 {
  const b = addr.toByteArray();
  return new ipaddr.IPv4(b.slice(offsetBytes, offsetBytes + 4));
}

/**
 * IPv6 text is canonicalised by the WHATWG parser first: ipaddr.js reads `::127.0.0.1` as
 * IPv4-mapped, while sockets (and URLs) read it as the IPv4-compatible `::7f00:1`.
 */
function canonicalText(input: string): string {
  let s = input.trim();
  if (s.startsWith('[') && s.endsWith(']')) s = s.slice(1, -1);
  if (!s.includes(':')) return s;
  const noZone = s.split('%', 1)[0]!;
  try {
    return new URL(`http://[${noZone}]/`).hostname.slice(1, -1);
  } catch {
    return s;
  }
}

/** Classify one address given as text (IPv4 in any inet_aton form, IPv6 with or without brackets/zone). */
export function classifyAddress(input: string): AddressClass {
  const text = canonicalText(input);
  let parsed: ipaddr.IPv4 | ipaddr.IPv6;
  try {
    parsed = ipaddr.parse(text);
  } catch {
    return { address: input, family: text.includes(':') ? 6 : 4, range: 'invalid', public: false };
  }

  if (parsed.kind() === 'ipv4') {
    const a = parsed as ipaddr.IPv4;
    const range = classifyV4(a);
    return { address: a.toString(), family: 4, range, public: range === 'unicast' };
  }

  const a6 = parsed as ipaddr.IPv6;
  // Drop any zone id: it does not change which range the address is in.
  const a = new ipaddr.IPv6(a6.parts);
  const address = a.toString();

  // A mapped address is dialled as the IPv4 it carries (dual-stack sockets), so it is that address.
  if (a.isIPv4MappedAddress()) {
    const e = a.toIPv4Address();
    const range = classifyV4(e);
    return {
      address,
      family: 6,
      range,
      public: range === 'unicast',
      via: 'ipv4Mapped',
      embedded: e.toString(),
    };
  }

  const extra = lookup(a, IPV6_EXTRA);
  if (extra) return { address, family: 6, range: extra, public: false };

  if (a.match(NAT64)) {
    const e = embeddedV4(a, 12);
    const r = classifyV4(e);
    // A DNS64 answer for a public host is a legitimate way out on IPv6-only networks.
    return {
      address,
      family: 6,
      range: r === 'unicast' ? 'nat64' : r,
      public: r === 'unicast',
      via: 'nat64',
      embedded: e.toString(),
    };
  }
  if (a.match(SIX_TO_FOUR)) {
    const e = embeddedV4(a, 2);
    const r = classifyV4(e);
    // 6to4 is deprecated (RFC 7526) and relays are anycast: refused whatever it carries.
    return {
      address,
      family: 6,
      range: r === 'unicast' ? '6to4' : r,
      public: false,
      via: '6to4',
      embedded: e.toString(),
    };
  }

  const base = a.range() as AddressRange;
  if (base === 'unspecified' || base === 'loopback')
    return { address, family: 6, range: base, public: false };
  // ipaddr.js calls the deprecated IPv4-compatible block (::a.b.c.d) unicast; some stacks still route it to IPv4.
  if (a.match(IPV4_COMPATIBLE)) return { address, family: 6, range: 'ipv4Compatible', public: false };
  if (base !== 'unicast') return { address, family: 6, range: base, public: false };
  // Only 2000::/3 is allocated for global unicast; anything else "unicast" is unassigned space.
  if (!a.match(GLOBAL_UNICAST)) return { address, family: 6, range: 'reserved', public: false };
  return { address, family: 6, range: 'unicast', public: true };
}

export interface AddressPolicy {
  /** Admit private and unique-local ranges (and loopback, unless `allowLoopback` says otherwise); never link-local, metadata or unspecified. */
  allowPrivate: boolean;
  /**
   * Admit loopback. Default: as `allowPrivate` (passthrough: one setting for both). KB
   * providers admit loopback on its own, so a local Ollama works without opening private ranges.
   */
  allowLoopback?: boolean;
  /** The setting that sets `allowPrivate`, named in refusals (`kb.allow_private_networks`). */
  privateSetting?: string;
}

export interface AddressVerdict extends AddressClass {
  allowed: boolean;
}

/** Ranges a setting may admit, and only when dialled natively or as IPv4-mapped (not through a tunnel prefix). */
const PRIVATE_ADMISSIBLE = new Set<AddressRange>(['private', 'uniqueLocal']);

function nativeForm(c: AddressClass): boolean {
  return c.via === undefined || c.via === 'ipv4Mapped';
}

export function checkAddress(input: string, policy: AddressPolicy): AddressVerdict {
  const c = classifyAddress(input);
  if (c.public) return { ...c, allowed: true };
  const native = nativeForm(c);
  const allowed =
    native &&
    ((c.range === 'loopback' && (policy.allowLoopback ?? policy.allowPrivate)) ||
      (policy.allowPrivate && PRIVATE_ADMISSIBLE.has(c.range)));
  return { ...c, allowed };
}

/** How a range is named in a refusal. */
export function describeRange(range: AddressRange): string {
  switch (range) {
    case 'loopback':
      return 'a loopback';
    case 'private':
    case 'uniqueLocal':
      return 'a private';
    case 'linkLocal':
      return 'a link-local';
    case 'metadata':
      return 'a cloud metadata';
    case 'unspecified':
      return 'an unspecified (0.0.0.0 / ::)';
    default:
      return `a non-public (${range})`;
  }
}

/**
 * The words of a refusal: what the address is and, when a setting would admit it, which one
 * (`set kb.allow_private_networks = true to allow it`); link-local, metadata, unspecified and
 * tunnelled forms are never admitted, and the message says so. `literal` says the host was
 * the address itself (`host '10.0.0.5' is a private address`) rather than a name that
 * resolved to it (the resolved address is not shown: a refusal must not map internal DNS).
 */
export function refusalMessage(
  host: string,
  literal: boolean,
  v: AddressClass,
  policy: AddressPolicy,
): string {
  const what = `host '${host}' ${literal ? 'is' : 'resolves to'} ${describeRange(v.range)} address`;
  const admissible = nativeForm(v) && (PRIVATE_ADMISSIBLE.has(v.range) || v.range === 'loopback');
  if (!admissible) return `${what}, which is never allowed`;
  // Loopback follows allowPrivate unless the policy admits it separately (then it was not refused).
  if (policy.privateSetting) return `${what}: set ${policy.privateSetting} = true to allow it`;
  return `${what}, which is not allowed`;
}
