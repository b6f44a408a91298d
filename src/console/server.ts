import type { FastifyInstance } from 'fastify';
import { SvcError } from '../core/errors.js';
import { listenError, parseListenAddress } from '../http/listen-address.js';
import { tlsChoice } from '../http/tls-choice.js';
import type { ServerLimits } from '../http/limits.js';
import type { OutboundPolicy } from '../notify/outbound-policy.js';
import { tlsServerOptions } from '../http/tls.js';
import { tlsReloaderFor, type TlsReload } from '../http/tls-reload.js';
import { parseIntegrationDocument } from '../integration/document.js';
import { Surfaces } from '../integration/surfaces.js';
import { readTextFile } from '../provisioning/text-file.js';
import { DataDir, type KekChoice } from '../store/data-dir.js';
import { openRecordedDecisions } from '../store/open.js';
import type { Store } from '../store/ports.js';
import { DAEMON_WAIT } from '../store/sqlite/write-lock.js';
import { buildConsole } from './app.js';
import { AssetStore } from '../store/asset-store.js';
import type { ConsoleDeps } from './deps.js';
import { Sessions } from './session.js';
import { defaultUiDir, loadUiBundle } from './ui-files.js';
import { countRequests } from '../metrics/requests.js';
import {
  metricsListenPlan,
  startMetricsListener,
  type MetricsListener,
  type MetricsListenOptions,
} from '../metrics/listener.js';
import { SvcMetrics } from '../metrics/registry.js';

export interface ConsoleStartOptions {
  dataDir: string;
  /** `--store` / `$SVC_STORE`: a PostgreSQL URL, else the data dir's SQLite database */
  store?: string;
  /** `--kek-file` and `--previous-kek-file`: open the secret-sealing key sealed in the database */
  kek?: KekChoice;
  /** host:port; default 127.0.0.1:8091 */
  listen: string;
  allowInsecureHttp: boolean;
  tlsCert?: string;
  tlsKey?: string;
  /** mutual TLS: sign-in takes the client certificate; bearer tokens are refused */
  clientCa?: string;
  /** the integration-operations document, for the Integrations page */
  integrationOps?: string;
  logger?: boolean | Record<string, unknown>;
  limits?: ServerLimits;
  /** the built pages (default: the package's dist/console-ui) */
  uiDir?: string;
  /** `--notify-allow-loopback-http` and `--notify-allow-private`: what a test send may reach */
  notifyOutbound?: OutboundPolicy;
  /** `--metrics-listen` and its companions: a separate listener serving GET /metrics; off without it. */
  metrics?: MetricsListenOptions;
}

export interface RunningConsole {
  url: string;
  app: FastifyInstance;
  store: Store;
  /** where GET /metrics is served, when `metrics` was given */
  metricsUrl?: string;
  /** Re-read the TLS certificate, key and client CA; a refused pair leaves the old one served. */
  reload(): Promise<TlsReload>;
  close(): Promise<void>;
}

export const DEFAULT_CONSOLE_LISTEN = '127.0.0.1:8091';

/** The production dependencies of the console over one data dir and store. */
export function consoleDeps(
  dir: DataDir,
  store: Store,
  o: {
    secure: boolean;
    authMode: ConsoleDeps['authMode'];
    surfaces?: Surfaces;
    clock?: () => Date;
    notifyOutbound?: OutboundPolicy;
  },
): ConsoleDeps {
  const clock = o.clock ?? (() => new Date());
  return {
    store,
    themes: store.themes,
    sessions: new Sessions({ store, sessions: store.consoleSessions, clock, secure: o.secure }),
    assets: new AssetStore(dir),
    clock,
    authMode: o.authMode,
    recorded: () => openRecordedDecisions(dir.store),
    dataDir: dir,
    ...(o.notifyOutbound ? { notifyOutbound: o.notifyOutbound } : {}),
    ...(o.surfaces ? { surfaces: o.surfaces } : {}),
  };
}

/**
 * Start the console on its own listener, with the same TLS rules as the daemon (the data
 * dir's deployment certificate by default; plain HTTP only when asked). `svc console
 * start` and `svc quickstart` call this; the handle closes the listener and the store.
 */
export async function startConsole(o: ConsoleStartOptions): Promise<RunningConsole> {
  const { host, port } = parseListenAddress(o.listen);
  // Refused addresses and unreadable tokens stop the start before the store opens.
  if (o.metrics) metricsListenPlan(o.metrics);
  const dir = new DataDir(o.dataDir, o.store, o.kek);
  const tls = tlsChoice(dir, o);
  const https = tls ? tlsServerOptions(tls) : undefined;
  const integration =
    o.integrationOps === undefined
      ? undefined
      : parseIntegrationDocument(readTextFile('integration-ops', o.integrationOps), o.integrationOps);
  const ui = loadUiBundle(o.uiDir ?? defaultUiDir());
  // Like the daemon, the console never sleeps on SQLite's write lock: it retries on timers.
  const store = await dir.openStore({ lockWait: DAEMON_WAIT, applicationName: 'svc console' });
  const deps = consoleDeps(dir, store, {
    secure: tls !== undefined,
    authMode: tls?.clientCa !== undefined ? 'mtls' : 'token',
    ...(o.notifyOutbound ? { notifyOutbound: o.notifyOutbound } : {}),
    ...(integration ? { surfaces: new Surfaces(integration) } : {}),
  });
  const app = buildConsole(deps, {
    ...(o.logger !== undefined ? { logger: o.logger } : {}),
    ...(https ? { https } : {}),
    ...(o.limits ? { limits: o.limits } : {}),
    ...(ui ? { ui } : {}),
  });
  if (!ui) app.log.warn('the console pages are not built; run `npm run build`');
  const poolStats = store.poolStats?.bind(store);
  const metrics = o.metrics
    ? new SvcMetrics({
        backlog: () => store.anchors.backlog(),
        approvalsPending: () => store.approvals.pendingCounts(new Date()),
        ...(poolStats ? { pool: poolStats } : {}),
      })
    : undefined;
  if (metrics) countRequests(app, metrics);
  let metricsListener: MetricsListener | undefined;
  try {
    await app.listen({ host, port });
    if (metrics && o.metrics) metricsListener = await startMetricsListener(metrics, o.metrics);
  } catch (err) {
    await app.close();
    await store.close();
    // the metrics listener's own refusals are already coded
    if (err instanceof SvcError) throw err;
    throw listenError(o.listen, err);
  }
  const addr = app.server.address();
  const actualPort = typeof addr === 'object' && addr ? addr.port : port;
  const shownHost = host.includes(':') ? `[${host}]` : host;
  let closing: Promise<void> | undefined;
  const tlsReloader = tlsReloaderFor(app, tls);
  return {
    url: `${tls ? 'https' : 'http'}://${shownHost}:${actualPort}`,
    app,
    store,
    reload: () => tlsReloader.reload(),
    ...(metricsListener ? { metricsUrl: metricsListener.url } : {}),
    close: () =>
      (closing ??= (async () => {
        await metricsListener?.close();
        await app.close();
        await store.close();
      })()),
  };
}
