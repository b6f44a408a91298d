import { createServer } from 'node:net';
import { SvcError } from '../core/errors.js';
import { parseListenAddress } from '../http/listen-address.js';

/**
 * Check that an address can be listened on before anything is written, so a busy port
 * never leaves a half-made data dir behind. `flag` is what the user changes to move it.
 */
export async function assertCanListen(listen: string, flag: string): Promise<void> {
  const { host, port } = parseListenAddress(listen);
  const server = createServer();
  await new Promise<void>((resolve, reject) => {
    server.once('error', (err: NodeJS.ErrnoException) => {
      const busy = err.code === 'EADDRINUSE';
      reject(
        new SvcError(
          'unavailable',
          busy
            ? `cannot listen on ${listen}: the port is already in use (is another svc daemon running?)`
            : `cannot listen on ${listen}: ${err.message}`,
          {
            field: flag.replace(/^--/, ''),
            remedy: busy
              ? `stop what listens there, or choose another address with ${flag}, for example ${flag} ${host.includes(':') ? `[${host}]` : host}:0 (a free port)`
              : `choose another address with ${flag}`,
            cause: err,
          },
        ),
      );
    });
    server.listen({ host, port, exclusive: true }, () => server.close(() => resolve()));
  });
}
