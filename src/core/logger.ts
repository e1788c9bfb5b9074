import pino, { type Logger } from 'pino';

/**
 * Structured logs to stderr (stdout is reserved for MCP in stdio mode).
 * Redaction is a second line of defence: code must not log secrets in the first place.
 */
export function createLogger(level = 'info', destination: pino.DestinationStream | number = 2): Logger {
  const dest =
    typeof destination === 'number' ? pino.destination({ fd: destination, sync: false }) : destination;
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
