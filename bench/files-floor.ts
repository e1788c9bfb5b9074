/**
 * The floor under the files benchmark's ratio: how long a bare node:http server (its own
 * process, like the real server) takes to receive the same CSV and write it to disk, with
 * nothing else done. Upload + first query can never be faster than this + reading the
 * file once, whatever the server does with it.
 */
import { spawn } from 'node:child_process';
import { sleep } from './lib.js';

const RECEIVER = `
const { createServer } = require('node:http');
const { createWriteStream, rmSync } = require('node:fs');
const { pipeline } = require('node:stream/promises');
const out = process.argv[1];
const srv = createServer(async (req, res) => {
  await pipeline(req, createWriteStream(out, { highWaterMark: 1 << 20 }));
  rmSync(out, { force: true });
  res.setHeader('content-type', 'application/json');
  res.end('{}');
});
srv.listen(0, '127.0.0.1', () => process.stdout.write(String(srv.address().port) + '\\n'));
`;

export interface BareReceiver {
  url: string;
  stop(): Promise<void>;
}

/** A receiver writing each PUT to `out` (removed after each request). */
export async function startBareReceiver(out: string): Promise<BareReceiver> {
  const proc = spawn(process.execPath, ['-e', RECEIVER, out], { stdio: ['ignore', 'pipe', 'inherit'] });
  const port = await new Promise<string>((resolve, reject) => {
    let buf = '';
    proc.stdout!.on('data', (d: Buffer) => {
      buf += d.toString();
      if (buf.includes('\n')) resolve(buf.trim());
    });
    proc.once('exit', (code) => reject(new Error(`bare receiver exited with ${code}`)));
  });
  return {
    url: `http://127.0.0.1:${port}`,
    stop: async () => {
      proc.kill('SIGTERM');
      await Promise.race([new Promise((r) => proc.once('exit', r)), sleep(2000)]);
    },
  };
}
