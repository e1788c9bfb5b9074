/**
 * What a connection may do before it has logged in (SPEC §9): send at most 16 KiB, and finish
 * the handshake within 10 s (MySQL's connect_timeout). Without the byte bound a client could
 * make the server hold a packet of up to max_allowed_packet (64 MiB) per connection before
 * any password was checked.
 */
export const PREAUTH_MAX_BYTES = 16 * 1024;
export const HANDSHAKE_TIMEOUT_MS = 10_000;

/** MySQL's ER_HANDSHAKE_ERROR. */
export const BAD_HANDSHAKE = 1043;

export const PREAUTH_TOO_MUCH = `Bad handshake: a connection may send at most ${PREAUTH_MAX_BYTES} bytes before it is authenticated`;

/** Bytes one connection sent before it logged in. */
export class PreAuthBudget {
  private used = 0;

  constructor(private readonly max = PREAUTH_MAX_BYTES) {}

  /** Counts `n` more bytes; false once the connection is past the bound (then it is refused unread). */
  take(n: number): boolean {
    this.used += n;
    return this.used <= this.max;
  }
}
