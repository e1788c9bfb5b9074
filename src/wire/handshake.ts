/**
 * The connection phase, as a small state machine over client packets: the handshake
 * response (after an optional TLS upgrade), then the chosen password plugin's exchange
 * (mysql_native_password; caching_sha2_password's fast path, or its full path with the
 * password over TLS or RSA), an auth switch for clients that offered another plugin.
 */
import {
  CACHING_SHA2,
  checkCleartext,
  checkRsa,
  checkToken,
  FAST_AUTH_SUCCESS,
  NATIVE,
  PERFORM_FULL_AUTH,
  REQUEST_PUBLIC_KEY,
  rsaKeys,
} from './auth.js';
import { PacketIn } from './packets.js';
import { CAP, type HandshakeResponse } from './replies.js';

export function parseHandshakeResponse(payload: Buffer): HandshakeResponse {
  const p = new PacketIn(payload);
  const caps = p.int4();
  p.int4(); // max packet size: ours is announced in @@max_allowed_packet
  // The collation statements are written in (session.ts); results are utf8mb4 whatever is asked.
  const collation = p.int1();
  p.bytes(23);
  const user = p.nulBytes().toString('utf8');
  let token: Buffer;
  if (caps & CAP.PLUGIN_AUTH_LENENC) token = p.lenencBytes();
  else if (caps & CAP.SECURE_CONNECTION) token = p.bytes(p.int1());
  else token = p.nulBytes();
  let db: string | null = null;
  if (caps & CAP.CONNECT_WITH_DB && p.left > 0) db = p.nulBytes().toString('utf8') || null;
  let plugin: string | null = null;
  if (caps & CAP.PLUGIN_AUTH && p.left > 0) plugin = p.nulBytes().toString('utf8') || null;
  return { caps, user, token: Buffer.from(token), db, plugin, collation };
}

/** An SSLRequest is the first 32 bytes of a handshake response with CLIENT_SSL set, alone. */
export function isSslRequest(payload: Buffer): boolean {
  return payload.length === 32 && (payload.readUInt32LE(0) & CAP.SSL) !== 0;
}

/** What the auth exchange writes back: bytes for an auth-more-data / switch packet, or a verdict. */
export type AuthStep =
  | { kind: 'send'; payload: Buffer }
  | { kind: 'sendThenOk'; payload: Buffer }
  | { kind: 'ok' }
  | { kind: 'denied' };

/**
 * One connection's password check. `first` takes the handshake response; `next` each
 * later packet of the exchange. The password is the configured one, never echoed.
 */
export class PasswordExchange {
  private phase: 'start' | 'switched' | 'full' | 'rsa' = 'start';

  constructor(
    private readonly password: string,
    private readonly scramble: Buffer,
    private readonly secure: boolean,
  ) {}

  first(plugin: string | null, token: Buffer): AuthStep {
    if (plugin === CACHING_SHA2) return this.sha2(token);
    // A client whose own plugin is not the one the greeting named (`mariadb
    // --default-auth=mysql_native_password`) answers with nothing, waiting for a switch to it.
    if (plugin === NATIVE && token.length === 0) return this.switchToNative();
    if (plugin === NATIVE || plugin === null)
      return checkToken(NATIVE, this.password, this.scramble, token) ? { kind: 'ok' } : { kind: 'denied' };
    // Another plugin (ed25519, dialog, cleartext): ask for mysql_native_password instead.
    return this.switchToNative();
  }

  /** An AuthSwitchRequest to mysql_native_password with this connection's scramble. */
  private switchToNative(): AuthStep {
    this.phase = 'switched';
    return {
      kind: 'send',
      payload: Buffer.concat([
        Buffer.from([0xfe]),
        Buffer.from(`${NATIVE}\0`),
        this.scramble,
        Buffer.from([0]),
      ]),
    };
  }

  private sha2(token: Buffer): AuthStep {
    // No password at all (PyMySQL without one): denied at once, as MySQL does (1045, not a
    // request for the full path the client would never answer).
    if (token.length === 0 || (token.length === 1 && token[0] === 0)) return { kind: 'denied' };
    if (checkToken(CACHING_SHA2, this.password, this.scramble, token))
      return { kind: 'sendThenOk', payload: Buffer.from([1, FAST_AUTH_SUCCESS]) };
    // As MySQL does when the fast path fails: ask for the password itself.
    this.phase = 'full';
    return { kind: 'send', payload: Buffer.from([1, PERFORM_FULL_AUTH]) };
  }

  async next(payload: Buffer): Promise<AuthStep> {
    switch (this.phase) {
      case 'switched':
        return checkToken(NATIVE, this.password, this.scramble, payload)
          ? { kind: 'ok' }
          : { kind: 'denied' };
      case 'full':
        if (this.secure) return checkCleartext(this.password, payload) ? { kind: 'ok' } : { kind: 'denied' };
        if (payload.length === 1 && payload[0] === REQUEST_PUBLIC_KEY) {
          this.phase = 'rsa';
          const keys = await rsaKeys();
          return { kind: 'send', payload: Buffer.concat([Buffer.from([1]), Buffer.from(keys.publicPem)]) };
        }
        // A password in clear over plain TCP is refused whatever it is.
        return { kind: 'denied' };
      case 'rsa': {
        const keys = await rsaKeys();
        return checkRsa(this.password, this.scramble, keys.privateKey, payload)
          ? { kind: 'ok' }
          : { kind: 'denied' };
      }
      default:
        return { kind: 'denied' };
    }
  }
}
