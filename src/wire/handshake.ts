/**
 * The connection phase, as a small state machine over client packets: the handshake
 * response (after an optional TLS upgrade), then the chosen password plugin's exchange
 * (mysql_native_password; caching_sha2_password's fast path, or its full path with the
 * password over TLS or RSA), an auth switch for clients that offered another plugin.
 */
import { timingSafeEqual } from 'node:crypto';
import {
  CACHING_SHA2,
  checkSha2Digest,
  checkToken,
  cleartextOf,
  FAST_AUTH_SUCCESS,
  NATIVE,
  PERFORM_FULL_AUTH,
  REQUEST_PUBLIC_KEY,
  rsaCleartextOf,
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
 * What the server knows of the password of the user logging in. The admin's
 * (TRIBUTARY_PASSWORD) is known in clear, so every plugin works; a user of auth.users_file is
 * known by a scrypt hash, checked against the password itself (caching_sha2_password's full
 * path), then by the SHA256(SHA256(pw)) remembered from that (its fast path). An unknown user
 * gets the same exchange as a file user, and a refusal at its end.
 */
export interface WireCredential {
  readonly password: string | null;
  sha2Digest(): Buffer | null;
  /** A password sent in full (TLS, or RSA without): checked and, when right, remembered. */
  verify(password: Buffer): Promise<boolean>;
}

/** A credential whose password is known in clear. */
export function clearCredential(password: string): WireCredential {
  const bytes = Buffer.from(password, 'utf8');
  return {
    password,
    sha2Digest: () => null,
    verify: async (sent) => sent.length === bytes.length && timingSafeEqual(sent, bytes),
  };
}

/**
 * One connection's password check. `first` takes the handshake response; `next` each
 * later packet of the exchange. The password is the configured one, never echoed.
 */
export class PasswordExchange {
  private phase: 'start' | 'switched' | 'full' | 'rsa' = 'start';
  private readonly cred: WireCredential;

  constructor(
    credential: string | WireCredential,
    private readonly scramble: Buffer,
    private readonly secure: boolean,
  ) {
    this.cred = typeof credential === 'string' ? clearCredential(credential) : credential;
  }

  first(plugin: string | null, token: Buffer): AuthStep {
    if (plugin === CACHING_SHA2) return this.sha2(token);
    const password = this.cred.password;
    // Without the password in clear, mysql_native_password cannot be checked: every other
    // plugin is asked to switch to caching_sha2_password (its full path sends the password).
    if (password === null) return this.switchTo(CACHING_SHA2);
    // A client whose own plugin is not the one the greeting named (`mariadb
    // --default-auth=mysql_native_password`) answers with nothing, waiting for a switch to it.
    if (plugin === NATIVE && token.length === 0) return this.switchTo(NATIVE);
    if (plugin === NATIVE || plugin === null)
      return checkToken(NATIVE, password, this.scramble, token) ? { kind: 'ok' } : { kind: 'denied' };
    // Another plugin (ed25519, dialog, cleartext): ask for mysql_native_password instead.
    return this.switchTo(NATIVE);
  }

  /** An AuthSwitchRequest to `plugin` with this connection's scramble. */
  private switchTo(plugin: string): AuthStep {
    this.phase = 'switched';
    this.switchedTo = plugin;
    return {
      kind: 'send',
      payload: Buffer.concat([
        Buffer.from([0xfe]),
        Buffer.from(`${plugin}\0`),
        this.scramble,
        Buffer.from([0]),
      ]),
    };
  }

  private switchedTo = NATIVE;

  private sha2(token: Buffer): AuthStep {
    // No password at all (PyMySQL without one): denied at once, as MySQL does (1045, not a
    // request for the full path the client would never answer).
    if (token.length === 0 || (token.length === 1 && token[0] === 0)) return { kind: 'denied' };
    const { password } = this.cred;
    const digest = password === null ? this.cred.sha2Digest() : null;
    const fast =
      password !== null
        ? checkToken(CACHING_SHA2, password, this.scramble, token)
        : digest !== null && checkSha2Digest(digest, this.scramble, token);
    if (fast) return { kind: 'sendThenOk', payload: Buffer.from([1, FAST_AUTH_SUCCESS]) };
    // As MySQL does when the fast path fails (or has nothing to check against): ask for the password itself.
    this.phase = 'full';
    return { kind: 'send', payload: Buffer.from([1, PERFORM_FULL_AUTH]) };
  }

  async next(payload: Buffer): Promise<AuthStep> {
    switch (this.phase) {
      case 'switched':
        this.phase = 'start';
        if (this.switchedTo === CACHING_SHA2) return this.sha2(payload);
        return this.cred.password !== null && checkToken(NATIVE, this.cred.password, this.scramble, payload)
          ? { kind: 'ok' }
          : { kind: 'denied' };
      case 'full':
        if (this.secure) return this.verdict(cleartextOf(payload));
        if (payload.length === 1 && payload[0] === REQUEST_PUBLIC_KEY) {
          this.phase = 'rsa';
          const keys = await rsaKeys();
          return { kind: 'send', payload: Buffer.concat([Buffer.from([1]), Buffer.from(keys.publicPem)]) };
        }
        // A password in clear over plain TCP is refused whatever it is.
        return { kind: 'denied' };
      case 'rsa': {
        this.phase = 'start';
        const keys = await rsaKeys();
        return this.verdict(rsaCleartextOf(this.scramble, keys.privateKey, payload));
      }
      default:
        return { kind: 'denied' };
    }
  }

  private async verdict(password: Buffer | null): Promise<AuthStep> {
    // An unreadable answer still costs a check, so it takes as long as a wrong password.
    const ok = await this.cred.verify(password ?? Buffer.alloc(0));
    return password !== null && ok ? { kind: 'ok' } : { kind: 'denied' };
  }
}
