import type { ServerOptions as HttpsOptions } from 'node:https';
import { SvcError } from '../core/errors.js';
import { tlsServerOptions } from '../http/tls.js';

/**
 * What the witness serves, decided before it listens: TLS from `--tls-cert`/`--tls-key`,
 * or plain HTTP only when asked (`--allow-insecure-http`), as the daemon decides. A witness
 * has no data dir, so there is no default certificate to fall back on.
 */
export function witnessTls(o: {
  tlsCert?: string | undefined;
  tlsKey?: string | undefined;
  allowInsecureHttp: boolean;
}): HttpsOptions | undefined {
  if (o.allowInsecureHttp) {
    if (o.tlsCert !== undefined || o.tlsKey !== undefined) {
      throw new SvcError('usage', '--allow-insecure-http cannot be combined with --tls-cert or --tls-key', {
        field: 'allow-insecure-http',
      });
    }
    return undefined;
  }
  if (o.tlsCert === undefined || o.tlsKey === undefined) {
    throw new SvcError(
      'usage',
      o.tlsCert === undefined && o.tlsKey === undefined
        ? 'refusing to serve plain HTTP: no --tls-cert and --tls-key given'
        : '--tls-cert and --tls-key go together',
      {
        field: o.tlsCert === undefined ? 'tls-cert' : 'tls-key',
        remedy:
          'pass --tls-cert and --tls-key (daemons then pin the certificate with --witness-ca), or --allow-insecure-http to serve plain HTTP on purpose (for example on loopback)',
      },
    );
  }
  return tlsServerOptions({ cert: o.tlsCert, key: o.tlsKey });
}
