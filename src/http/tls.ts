import { readFileSync } from 'node:fs';
import type { ServerOptions } from 'node:https';
import { SvcError } from '../core/errors.js';

function readPem(path: string, what: string): Buffer {
  try {
    return readFileSync(path);
  } catch (err) {
    throw new SvcError(
      'invalid_request',
      `${what}: cannot read ${path} (${(err as NodeJS.ErrnoException).code ?? 'error'})`,
      {
        cause: err,
      },
    );
  }
}

/**
 * HTTPS options for a listener. With a client CA the listener asks every client for a
 * certificate chaining to it; the handshake still completes without one so the health
 * routes stay reachable, and every authenticated route then refuses the caller.
 */
export function tlsServerOptions(opts: { cert: string; key: string; clientCa?: string }): ServerOptions {
  const out: ServerOptions = {
    cert: readPem(opts.cert, 'tls-cert'),
    key: readPem(opts.key, 'tls-key'),
    minVersion: 'TLSv1.2',
  };
  if (opts.clientCa !== undefined) {
    out.ca = readPem(opts.clientCa, 'client-ca');
    out.requestCert = true;
    out.rejectUnauthorized = false;
  }
  return out;
}
