import { createServer } from 'node:net';
import { listenError, parseListenAddress } from '../http/listen-address.js';

/**
 * Check that an address can be listened on before anything is written, so a busy port
 * never leaves a half-made data dir behind. `flag` is what the user changes to move it.
 */
export async function assertCanListen(listen: string, flag: string): Promise<void> {
  const { host, port } = parseListenAddress(listen);
  const server = createServer();
  await new Promise<void>((resolve, reject) => {
    server.once('error', (err) => reject(listenError(listen, err, flag)));
    server.listen({ host, port, exclusive: true }, () => server.close(() => resolve()));
  });
}
