/** A start-up configuration problem; the message names the key, variable or file at fault. */
export class ConfigError extends Error {
  override name = 'ConfigError';
}
