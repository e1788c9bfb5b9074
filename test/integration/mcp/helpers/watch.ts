import { setTimeout as sleep } from 'node:timers/promises';
import type mysql from 'mysql2/promise';

/** Whether a statement whose text holds `marker` is running on MariaDB (seen from an admin connection). */
export async function running(admin: mysql.Connection, marker: string): Promise<boolean> {
  const [rows] = await admin.query(
    "SELECT ID FROM information_schema.PROCESSLIST WHERE INFO LIKE ? AND INFO NOT LIKE '%PROCESSLIST%'",
    [`%${marker}%`],
  );
  return (rows as unknown[]).length > 0;
}

/** Polls `check` until it holds; throws naming `what` after `ms`. */
export async function until(what: string, check: () => Promise<boolean>, ms = 15_000): Promise<void> {
  const end = Date.now() + ms;
  while (!(await check())) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await sleep(20);
  }
}
