import { z } from 'zod';
import {
  booleanParam,
  COLLATION_DOC,
  collationParam,
  portParam,
  READ_ONLY_DOC,
  secretParam,
  textParam,
} from '../params.js';

export const SSL_MODES = ['disable', 'allow', 'prefer', 'require', 'verify-ca', 'verify-full'] as const;
export type SslMode = (typeof SSL_MODES)[number];

export const postgresParams = z.strictObject({
  host: textParam(),
  port: portParam().default(5432),
  user: textParam(),
  password: secretParam().optional(),
  database: textParam(),
  schema: textParam().default('public'),
  // libpq's default: TLS when the server offers it, plain otherwise.
  sslmode: z.enum(SSL_MODES).default('prefer'),
  collation: collationParam(),
  read_only: booleanParam().default(false),
});

export type PostgresParams = z.infer<typeof postgresParams>;

export const postgresParamDocs: Record<string, string> = {
  host: 'server host name or address (required)',
  port: 'server port (default 5432)',
  user: 'user name (required)',
  password: 'password (secret)',
  database: 'database name (required)',
  schema: 'schema for unqualified tables (default public)',
  sslmode: `TLS: ${SSL_MODES.join(', ')} (default prefer)`,
  collation: COLLATION_DOC,
  read_only: READ_ONLY_DOC,
};
