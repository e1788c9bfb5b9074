/**
 * auth.users_file (docs/reference/http.md#more-users): token-auth users beside TRIBUTARY_USERNAME,
 * JSON `[{"username": "...", "password_hash": "scrypt$...", "groups": ["..."]}]`. Read at
 * start-up (a bad file stops it, naming the entry) and again whenever the file changes (a bad
 * file then keeps the users read before, and the log says why).
 */
import { type FSWatcher, readFileSync, watch } from 'node:fs';
import { basename, dirname } from 'node:path';
import type { Logger } from 'pino';
import { type PasswordHash, parsePasswordHash } from './password-hash.js';

export interface FileUser {
  username: string;
  /** The hash as written in the file (the wire's fast-path cache is keyed by it). */
  passwordHashText: string;
  passwordHash: PasswordHash;
  groups: string[];
}

export class UsersFileError extends Error {}

const KEYS = new Set(['username', 'password_hash', 'groups']);

/** The users of a file's text; throws UsersFileError naming the file and the entry at fault. */
export function parseUsersFile(
  text: string,
  path: string,
  adminUsername: string | null,
): Map<string, FileUser> {
  let doc: unknown;
  try {
    doc = JSON.parse(text);
  } catch (e) {
    throw new UsersFileError(`auth.users_file ${path}: not valid JSON (${(e as Error).message})`);
  }
  if (!Array.isArray(doc))
    throw new UsersFileError(
      `auth.users_file ${path}: expected a JSON array of {"username", "password_hash", "groups"} objects`,
    );
  const users = new Map<string, FileUser>();
  doc.forEach((entry: unknown, i) => {
    const name =
      entry && typeof entry === 'object' && typeof (entry as { username?: unknown }).username === 'string'
        ? ` ("${(entry as { username: string }).username}")`
        : '';
    const bad = (why: string) => new UsersFileError(`auth.users_file ${path}: entry ${i + 1}${name}: ${why}`);
    if (!entry || typeof entry !== 'object' || Array.isArray(entry))
      throw bad('expected an object {"username", "password_hash", "groups"}');
    const e = entry as Record<string, unknown>;
    for (const k of Object.keys(e))
      if (!KEYS.has(k)) throw bad(`unknown key '${k}' (expected username, password_hash, groups)`);
    const { username, password_hash: hashText, groups = [] } = e;
    if (typeof username !== 'string' || !username) throw bad('username must be a non-empty string');
    // The wire protocol sends names NUL-terminated; a name is one printable line.
    // biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what is refused.
    if (username.length > 128 || username !== username.trim() || /[\u0000-\u001f\u007f]/.test(username))
      throw bad('username must be at most 128 characters, without control characters or surrounding spaces');
    if (username === adminUsername)
      throw bad('is TRIBUTARY_USERNAME, the admin, whose password comes from TRIBUTARY_PASSWORD');
    if (users.has(username)) throw bad(`username '${username}' appears twice`);
    if (typeof hashText !== 'string')
      throw bad('password_hash must be a string (print one with `tributary hash-password`)');
    const hash = parsePasswordHash(hashText);
    if (typeof hash === 'string') throw bad(`password_hash ${hash}`);
    if (!Array.isArray(groups) || groups.some((g) => typeof g !== 'string' || !g))
      throw bad('groups must be an array of non-empty strings');
    users.set(username, {
      username,
      passwordHashText: hashText,
      passwordHash: hash,
      groups: [...new Set(groups as string[])],
    });
  });
  return users;
}

/** How long after the last change event the file is read (editors write in several steps). */
const SETTLE_MS = 50;

/** The users of the file now; re-read when it changes. */
export class UsersFile {
  private users: Map<string, FileUser>;
  private watcher: FSWatcher | null = null;
  private timer: NodeJS.Timeout | null = null;
  private lastText: string;
  /** Counts the reloads that changed the users (a connection re-reads its user when it moves). */
  version = 0;

  constructor(
    readonly path: string,
    private readonly adminUsername: string | null,
    private readonly logger: Logger,
  ) {
    this.lastText = this.read();
    this.users = parseUsersFile(this.lastText, path, adminUsername);
    logger.info({ path, users: this.users.size }, 'users file read');
  }

  private read(): string {
    try {
      return readFileSync(this.path, 'utf8');
    } catch (e) {
      throw new UsersFileError(
        `auth.users_file ${this.path}: cannot be read (${(e as NodeJS.ErrnoException).code ?? (e as Error).message})`,
      );
    }
  }

  get(username: string): FileUser | undefined {
    return this.users.get(username);
  }

  get size(): number {
    return this.users.size;
  }

  /**
   * Watches the file's directory, not the file: an editor or `mv` that replaces the file
   * gives it a new inode, which a watch on the old one would never see.
   */
  watch(): void {
    if (this.watcher) return;
    const name = basename(this.path);
    this.watcher = watch(dirname(this.path), { persistent: false }, (_event, file) => {
      if (file !== null && file !== name) return;
      if (this.timer) clearTimeout(this.timer);
      this.timer = setTimeout(() => this.reload(), SETTLE_MS);
      this.timer.unref();
    });
    this.watcher.on('error', (e) =>
      this.logger.warn({ path: this.path, err: e.message }, 'users file watch failed'),
    );
  }

  /** Reads the file again; a bad file keeps the users read before. True when the users changed. */
  reload(): boolean {
    let text: string;
    let users: Map<string, FileUser>;
    try {
      text = this.read();
      if (text === this.lastText) return false;
      users = parseUsersFile(text, this.path, this.adminUsername);
    } catch (e) {
      this.logger.error(
        { path: this.path, err: (e as Error).message, users_kept: this.users.size },
        'users file not reloaded: keeping the users read before',
      );
      return false;
    }
    this.lastText = text;
    this.users = users;
    this.version++;
    this.logger.info({ path: this.path, users: users.size }, 'users file reloaded');
    return true;
  }

  close(): void {
    this.watcher?.close();
    this.watcher = null;
    if (this.timer) clearTimeout(this.timer);
  }
}
