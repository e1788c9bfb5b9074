import type http from 'node:http';
import { request } from 'node:http';

export interface RawResponse {
  status: number;
  headers: http.IncomingHttpHeaders;
  body: string;
}

/** A raw HTTP request, so Host and Origin are exactly what a browser (or an attacker) sends. */
export function raw(
  port: number,
  method: string,
  path: string,
  headers: Record<string, string> = {},
  opts: { body?: string; headersOnly?: boolean } = {},
): Promise<RawResponse> {
  return new Promise((resolve, reject) => {
    const req = request(
      { host: '127.0.0.1', port, method, path, headers, setHost: headers.host === undefined },
      (res) => {
        if (opts.headersOnly) {
          resolve({ status: res.statusCode!, headers: res.headers, body: '' });
          res.destroy();
          return;
        }
        let body = '';
        res.on('data', (d) => {
          body += String(d);
        });
        res.on('end', () => resolve({ status: res.statusCode!, headers: res.headers, body }));
      },
    );
    req.on('error', reject);
    req.setTimeout(10_000, () => req.destroy(new Error('timeout')));
    req.end(opts.body);
  });
}
