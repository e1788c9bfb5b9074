import { lookup } from 'node:dns/promises';
import { isIP, type Socket } from 'node:net';
import { Agent, buildConnector } from 'undici';
import { type AddressClass, type AddressPolicy, checkAddress, refusalMessage } from './address-policy.js';
import { EgressError } from './errors.js';

/**
 * The dispatcher every outbound call goes through. Its connector resolves the host itself,
 * checks every answer against the address policy, and dials the checked address (no second
 * lookup, so DNS rebinding between check and connect is impossible). IP literals in any
 * spelling reach this point already canonical (the WHATWG URL parser turns 2130706433,
 * 0x7f000001 and 127.1 into 127.0.0.1), and the socket's peer address is checked again
 * once connected.
 */

export interface ResolvedAddress {
  address: string;
  family: 4 | 6;
}

/** Host name → addresses. Injectable so tests never touch real DNS. */
export type Resolver = (hostname: string) => Promise<ResolvedAddress[]>;

export const systemResolver: Resolver = async (hostname) => {
  const answers = await lookup(hostname, { all: true, verbatim: true });
  return answers.map((a) => ({ address: a.address, family: a.family === 6 ? 6 : 4 }));
};

export interface EgressAgentOptions extends AddressPolicy {
  resolver?: Resolver;
  /** Per TCP/TLS connect attempt, and for the DNS lookup. */
  connectTimeoutMs?: number;
}

const DEFAULT_CONNECT_TIMEOUT = 10_000;
/** At most this many of a host's addresses are tried, one after another. */
const MAX_ATTEMPTS = 4;

function withTimeout<T>(p: Promise<T>, ms: number, onTimeout: () => Error): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const t = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(onTimeout()), ms);
  });
  return Promise.race([p, t]).finally(() => clearTimeout(timer));
}

/** A refused address, in the words of address-policy.ts `refusalMessage`. */
export function privateAddressError(
  host: string,
  v: AddressClass,
  policy: AddressPolicy,
  literal = isIP(host.replace(/^\[|\]$/g, '')) !== 0,
): EgressError {
  return new EgressError('private_address', refusalMessage(host, literal, v, policy));
}

async function resolveChecked(host: string, opts: EgressAgentOptions, timeoutMs: number): Promise<string[]> {
  const shown = host.includes(':') ? `[${host}]` : host;
  let addresses: string[];
  if (isIP(host)) {
    addresses = [host];
  } else {
    const resolver = opts.resolver ?? systemResolver;
    let answers: ResolvedAddress[];
    try {
      answers = await withTimeout(
        resolver(host),
        timeoutMs,
        () => new EgressError('upstream_timeout', `resolving host '${shown}' timed out`),
      );
    } catch (e) {
      if (e instanceof EgressError) throw e;
      throw new EgressError('upstream_unreachable', `could not resolve host '${shown}'`);
    }
    if (answers.length === 0)
      throw new EgressError('upstream_unreachable', `could not resolve host '${shown}'`);
    addresses = answers.map((a) => a.address);
  }
  // Every answer must pass: a name that mixes public and private answers is a rebinding setup.
  for (const a of addresses) {
    const v = checkAddress(a, opts);
    if (!v.allowed) throw privateAddressError(shown, v, opts);
  }
  return addresses;
}

function checkedConnector(opts: EgressAgentOptions): buildConnector.connector {
  const timeout = opts.connectTimeoutMs ?? DEFAULT_CONNECT_TIMEOUT;
  const dial = buildConnector({ timeout });
  return (connectOpts: buildConnector.Options, callback: buildConnector.Callback) => {
    const host = connectOpts.hostname;
    const shown = host.includes(':') ? `[${host}]` : host;
    // SNI and certificate checks use the name, while the socket goes to the checked address.
    const sni =
      connectOpts.protocol === 'https:' && !isIP(host) ? { servername: host.replace(/\.$/, '') } : {};

    const attempt = (addresses: string[], i: number): void => {
      dial({ ...connectOpts, hostname: addresses[i]!, ...sni }, (err, socket) => {
        if (err || !socket) {
          if (i + 1 < Math.min(addresses.length, MAX_ATTEMPTS)) return attempt(addresses, i + 1);
          return callback(
            err ?? new EgressError('upstream_unreachable', `could not connect to '${shown}'`),
            null,
          );
        }
        const peer = (socket as Socket).remoteAddress;
        const v = peer ? checkAddress(peer, opts) : null;
        if (!v?.allowed) {
          socket.destroy();
          const seen = v ?? { address: '', family: 4 as const, range: 'invalid', public: false };
          return callback(privateAddressError(shown, seen, opts), null);
        }
        callback(null, socket);
      });
    };

    resolveChecked(host, opts, timeout).then(
      (addresses) => attempt(addresses, 0),
      (e: unknown) => callback(e as Error, null),
    );
  };
}

const systemAgents = new Map<string, Agent>();
const injectedAgents = new WeakMap<Resolver, Map<string, Agent>>();

/**
 * One pooled Agent per policy (and per injected resolver), so keep-alive connections are
 * reused only under the policy that admitted them.
 */
export function getEgressAgent(opts: EgressAgentOptions): Agent {
  const loopback = opts.allowLoopback ?? opts.allowPrivate;
  const key = `${opts.allowPrivate ? 'p' : 'n'}${loopback ? 'l' : 'n'}:${opts.privateSetting ?? ''}:${opts.connectTimeoutMs ?? DEFAULT_CONNECT_TIMEOUT}`;
  let pool = systemAgents;
  if (opts.resolver) {
    pool = injectedAgents.get(opts.resolver) ?? new Map();
    injectedAgents.set(opts.resolver, pool);
  }
  let agent = pool.get(key);
  if (!agent) {
    agent = new Agent({
      connect: checkedConnector({ ...opts }),
      keepAliveTimeout: 4_000,
      keepAliveMaxTimeout: 30_000,
      connections: 128,
    });
    pool.set(key, agent);
  }
  return agent;
}

/** Close the pooled agents for the system resolver (shutdown, tests). */
export async function closeEgressAgents(): Promise<void> {
  const agents = [...systemAgents.values()];
  systemAgents.clear();
  await Promise.all(agents.map((a) => a.close().catch(() => {})));
}
