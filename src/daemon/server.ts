import { existsSync } from 'node:fs';
import type { FastifyInstance } from 'fastify';
import { SvcError } from '../core/errors.js';
import { DataDir } from '../store/data-dir.js';
import type { SqliteStore } from '../store/sqlite/store.js';
import { tlsServerOptions } from '../tls/listener-options.js';
import { buildDaemon } from './app.js';
import { parseListenAddress } from './listen-address.js';
import { daemonDeps } from './wiring.js';

export interface DaemonStartOptions {
  dataDir: string;
  listen: string;
  allowInsecureHttp: boolean;
  tlsCert?: string;
  tlsKey?: string;
  clientCa?: string;
  logger?: boolean | Record<string, unknown>;
}

export interface RunningDaemon {
  url: string;
  app: FastifyInstance;
  store: SqliteStore;
  /** Stop accepting, let in-flight requests finish, close the store. */
  close(): Promise<void>;
}

/** What TLS the listener uses, decided before anything opens. */
function tlsChoice(
  dir: DataDir,
  o: DaemonStartOptions,
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

export async function startDaemon(o: DaemonStartOptions): Promise<RunningDaemon> {
  const { host, port } = parseListenAddress(o.listen);
  const dir = new DataDir(o.dataDir);
  const tls = tlsChoice(dir, o);
  const https = tls ? tlsServerOptions(tls) : undefined;
  const store = dir.openStore();
  const deps = daemonDeps(dir, store, { authMode: tls?.clientCa !== undefined ? 'mtls' : 'token' });
  const app = buildDaemon(deps, {
    ...(o.logger !== undefined ? { logger: o.logger } : {}),
    ...(https ? { https } : {}),
  });
  try {
    await app.listen({ host, port });
  } catch (err) {
    await store.close();
    throw new SvcError('unavailable', `cannot listen on ${o.listen}: ${(err as Error).message}`, {
      cause: err,
    });
  }
  const addr = app.server.address();
  const actualPort = typeof addr === 'object' && addr ? addr.port : port;
  const shownHost = host.includes(':') ? `[${host}]` : host;
  let closing: Promise<void> | undefined;
  return {
    url: `${tls ? 'https' : 'http'}://${shownHost}:${actualPort}`,
    app,
    store,
    close: () =>
      (closing ??= (async () => {
        await app.close();
        await store.close();
      })()),
  };
}
