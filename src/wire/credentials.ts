/**
 * The password a login on the listener is checked against (docs/reference/wire.md#users):
 * the admin's is known in clear; a user of auth.users_file is known by a scrypt hash (and, once
 * logged in, the fast-path digest); an unknown user goes through the same exchange as a file
 * user and is refused at its end, after a check as slow as a real one.
 */
import { isUtf8 } from 'node:buffer';
import type { UserDirectory } from '../auth/users.js';
import { clearCredential, type WireCredential } from './handshake.js';

export function credentialOf(users: UserDirectory, user: string): WireCredential {
  const account = users.account(user);
  if (account?.admin) return clearCredential(account.password);
  return {
    password: null,
    sha2Digest: () => (account ? users.sha2Digest(account) : null),
    // PyMySQL sends a str password as latin-1: bytes that are not UTF-8 are read so.
    verify: async (sent) =>
      (await users.verify(user, sent.toString(isUtf8(sent) ? 'utf8' : 'latin1'))) !== null,
  };
}
