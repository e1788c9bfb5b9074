/**
 * The token-auth users (docs/reference/http.md#more-users): TRIBUTARY_USERNAME, the admin, whose
 * password is configured in clear, and the users of auth.users_file, known by scrypt hashes.
 * Login over HTTP and the MySQL listener both ask here.
 */
import { createHash } from 'node:crypto';
import type { Logger } from 'pino';
import { decoyHash, type PasswordHash, verifyPassword } from './password-hash.js';
import { constantTimeEqual } from './secrets.js';
import { UsersFile } from './users-file.js';

/** A user who may log in. `password` only for the admin; file users have `hash`. */
export type Account =
  | { user: string; admin: true; groups: string[]; password: string }
  | { user: string; admin: false; groups: string[]; hash: PasswordHash; hashText: string };

export class UserDirectory {
  readonly file: UsersFile | null;
  /**
   * SHA256(SHA256(password)) of file users who logged in, keyed by user and the hash in the
   * file: caching_sha2_password's fast path for their next MySQL connections, as MySQL keeps
   * it. In memory only; a changed hash in the file drops it.
   */
  private readonly sha2 = new Map<string, { hashText: string; digest: Buffer }>();

  constructor(
    private readonly admin: { username: string; password: string },
    usersFile: string | null,
    logger: Logger,
  ) {
    this.file = usersFile ? new UsersFile(usersFile, admin.username, logger) : null;
    this.file?.watch();
  }

  /** Changes whenever the users file's users do. */
  get version(): number {
    return this.file?.version ?? 0;
  }

  get adminUsername(): string {
    return this.admin.username;
  }

  /** The account of a user name now (the file as last read); undefined for an unknown one. */
  account(username: string): Account | undefined {
    if (username === this.admin.username)
      return { user: username, admin: true, groups: [], password: this.admin.password };
    const u = this.file?.get(username);
    return u
      ? {
          user: u.username,
          admin: false,
          groups: u.groups,
          hash: u.passwordHash,
          hashText: u.passwordHashText,
        }
      : undefined;
  }

  /**
   * The account when the password is right; null otherwise. An unknown user costs a check
   * against a decoy hash, so the time taken does not tell which user names exist.
   */
  async verify(username: string, password: string): Promise<Account | null> {
    const a = this.account(username);
    if (a?.admin && constantTimeEqual(password, a.password)) return a;
    if (!a || a.admin) {
      await verifyPassword(password, await decoyHash());
      return null;
    }
    if (!(await verifyPassword(password, a.hash))) return null;
    const stage2 = createHash('sha256')
      .update(createHash('sha256').update(password, 'utf8').digest())
      .digest();
    this.sha2.set(a.user, { hashText: a.hashText, digest: stage2 });
    return a;
  }

  /** The remembered SHA256(SHA256(password)) of a file user, while the file still holds the same hash. */
  sha2Digest(a: Account): Buffer | null {
    if (a.admin) return null;
    const c = this.sha2.get(a.user);
    if (!c) return null;
    if (c.hashText !== a.hashText) {
      this.sha2.delete(a.user);
      return null;
    }
    return c.digest;
  }

  close(): void {
    this.file?.close();
  }
}
