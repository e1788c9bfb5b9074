import type { IncomingMessage } from 'node:http';
import proxyaddr from '@fastify/proxy-addr';

/**
 * The client's address as login throttling and rate limits see it. With api.http.trust_proxy
 * empty (the default) it is the socket's peer; with trusted proxies listed, X-Forwarded-For
 * is followed back through them (the same rule Fastify's `request.ip` uses).
 */
export function clientIpResolver(trustProxy: readonly string[]): (req: IncomingMessage) => string {
  if (trustProxy.length === 0) return (req) => req.socket.remoteAddress ?? '';
  const trust = proxyaddr.compile([...trustProxy]);
  return (req) => proxyaddr(req, trust);
}

/** Fastify's `trustProxy` option for the same setting. */
export function fastifyTrustProxy(trustProxy: readonly string[]): string[] | false {
  return trustProxy.length ? [...trustProxy] : false;
}
