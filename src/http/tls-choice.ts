import { existsSync } from 'node:fs';
import { SvcError } from '../core/errors.js';

/** Where the deployment's own certificate lives (the data dir's, from `svc init`). */
export interface DeploymentCertificate {
  readonly tlsCert: string;
  readonly tlsKey: string;
}

/** The TLS flags every listener command takes. */
export interface TlsFlags {
  allowInsecureHttp: boolean;
  tlsCert?: string;
  tlsKey?: string;
  clientCa?: string;
}

/** What TLS a listener uses (the daemon's and the console's alike), decided before anything opens. */
export function tlsChoice(
  dir: DeploymentCertificate,
  o: TlsFlags,
): { cert: string; key: string; clientCa?: string } | undefined {
  if (o.allowInsecureHttp) {
    if (o.tlsCert || o.tlsKey || o.clientCa) {
      throw new SvcError(
        'usage',
        '--allow-insecure-http cannot be combined with --tls-cert, --tls-key or --client-ca',
      );
    }
    return undefined;
  }
  if ((o.tlsCert === undefined) !== (o.tlsKey === undefined)) {
    throw new SvcError('usage', '--tls-cert and --tls-key go together');
  }
  const cert = o.tlsCert ?? dir.tlsCert;
  const key = o.tlsKey ?? dir.tlsKey;
  if (!existsSync(cert) || !existsSync(key)) {
    throw new SvcError('usage', `refusing to serve plain HTTP: no TLS certificate at ${cert}`, {
      remedy:
        'run `svc init` to make the deployment certificate, pass --tls-cert and --tls-key, or pass --allow-insecure-http to serve plain HTTP on purpose',
    });
  }
  return { cert, key, ...(o.clientCa !== undefined ? { clientCa: o.clientCa } : {}) };
}
