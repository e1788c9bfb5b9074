/** The command-line client's defaults: which server `query`/`sql`/`upload` talk to, and how. */
export interface ClientSettings {
  url?: string;
  token?: string;
}

/** Flags win over TRIBUTARY_URL / TRIBUTARY_TOKEN. */
export function clientSettings(
  flags: ClientSettings,
  env: Record<string, string | undefined> = process.env,
): ClientSettings {
  const url = flags.url ?? (env.TRIBUTARY_URL?.trim() || undefined);
  const token = flags.token ?? (env.TRIBUTARY_TOKEN?.trim() || undefined);
  return { url, token };
}
