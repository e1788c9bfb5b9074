import { createRequire } from 'node:module';
import pino, { type Logger } from 'pino';

export type LogFormat = 'auto' | 'json' | 'pretty';

/**
 * Structured logs to stderr (stdout is reserved for MCP in stdio mode).
 * Redaction is a second line of defence: code must not log secrets in the first place.
 */
export function createLogger(
  level = 'info',
  destination: pino.DestinationStream | number = 2,
  format: LogFormat = 'json',
): Logger {
  const pretty =
    typeof destination === 'number' &&
    (format === 'pretty' || (format === 'auto' && destination === 2 && process.stderr.isTTY === true));
  const dest = pretty
    ? prettyStream(destination as number)
    : typeof destination === 'number'
      ? pino.destination({ fd: destination, sync: false })
      : destination;
  return pino(
    {
      level,
      base: { service: 'tributary' },
      redact: {
        paths: [
          'password',
          '*.password',
          'params.password',
          'params.bearer_token',
          'bearer_token',
          'token',
          '*.token',
          'authorization',
          'headers.authorization',
          'req.headers.authorization',
          'client_secret',
          '*.client_secret',
        ],
        censor: '[REDACTED]',
      },
    },
    dest,
  );
}

/** pino-pretty, loaded only when a terminal is there to read it (JSON logs never pay for it). */
function prettyStream(fd: number): pino.DestinationStream {
  const require = createRequire(import.meta.url);
  const pretty = require('pino-pretty') as typeof import('pino-pretty');
  return pretty({
    destination: fd,
    sync: false,
    colorize: fd === 2 ? process.stderr.isTTY === true : false,
    ignore: 'pid,hostname,service',
    translateTime: 'SYS:HH:MM:ss.l',
    singleLine: true,
  });
}
