import { z } from 'zod';
import {
  booleanOrObjectParam,
  booleanParam,
  COLLATION_DOC,
  collationParam,
  portParam,
  READ_ONLY_DOC,
  secretParam,
  textParam,
} from '../params.js';

/** TLS options as mysql2 (node:tls) takes them; PEM text for ca/cert/key. */
const sslObject = z.strictObject({
  ca: z.string().optional(),
  cert: z.string().optional(),
  key: z.string().optional(),
  rejectUnauthorized: booleanParam().optional(),
  servername: z.string().optional(),
});

export const mysqlParams = z.strictObject({
  host: textParam(),
  port: portParam().default(3306),
  user: textParam(),
  password: secretParam().optional(),
  database: textParam(),
  ssl: booleanOrObjectParam(sslObject).default(false),
  collation: collationParam(),
  read_only: booleanParam().default(false),
});

export type MysqlParams = z.infer<typeof mysqlParams>;

export const mysqlParamDocs: Record<string, string> = {
  host: 'server host name or address (required)',
  port: 'server port (default 3306)',
  user: 'user name (required)',
  password: 'password (secret)',
  database: 'database name (required); the default schema',
  ssl: 'TLS: false (default), true (verified), or {"ca","cert","key","rejectUnauthorized","servername"}',
  collation: `${COLLATION_DOC}; a MySQL source already compares as MySQL does, so both run the same there`,
  read_only: READ_ONLY_DOC,
};
