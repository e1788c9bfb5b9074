import net from 'node:net';

/**
 * PostgreSQL's CancelRequest on a fresh socket (libpq's PQcancel): it needs no login and no
 * pool slot, and stops the statement the backend is running. Resolves when the server has
 * closed the socket, i.e. after it has signalled the backend.
 */
export function sendCancelRequest(
  host: string,
  port: number,
  processID: number,
  secretKey: number,
): Promise<void> {
  return new Promise((resolve) => {
    const msg = Buffer.alloc(16);
    msg.writeInt32BE(16, 0);
    msg.writeInt32BE(80877102, 4);
    msg.writeInt32BE(processID, 8);
    msg.writeInt32BE(secretKey, 12);
    const sock = net.connect({ host, port });
    const done = () => {
      sock.destroy();
      resolve();
    };
    sock.setTimeout(3000, done);
    sock.once('connect', () => sock.end(msg));
    sock.once('close', done);
    sock.once('error', done);
  });
}
