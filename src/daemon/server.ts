import { X509Certificate } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { hostname } from 'node:os';
import { resolve } from 'node:path';
import type { FastifyInstance } from 'fastify';
import type { ServerLimits } from '../http/limits.js';
import { RequestActivity } from '../http/request-activity.js';
import { tlsChoice } from '../http/tls-choice.js';
import { tlsServerOptions } from '../http/tls.js';
import { Drain } from '../http/drain.js';
import { tlsReloaderFor, type TlsReload } from '../http/tls-reload.js';
import { checkLiveSettings, LIVE_KEYS, type LiveSettings } from './live-settings.js';
import { parseIntegrationDocument } from '../integration/document.js';
import { readTextFile } from '../provisioning/text-file.js';
import {
  clientHost,
  liveRecordedDaemon,
  selfSignedCertificate,
  writeDaemonAddress,
} from '../store/daemon-address.js';
import { DataDir, type KekChoice, type Pkcs11Choice } from '../store/data-dir.js';
import { kekSetOf } from '../store/kek.js';
import { openToken } from '../store/pkcs11-token.js';
import { Keyring } from '../store/keyring.js';
import type { Store } from '../store/ports.js';
import { DAEMON_WAIT } from '../store/sqlite/write-lock.js';
import { AnchorSchedule, DEFAULT_ANCHOR_ENTRIES, DEFAULT_ANCHOR_INTERVAL_MS } from './anchor-schedule.js';
import { AnchorAttestor } from './attest/anchor-attestor.js';
import { attestUrl } from './attest/attest-url.js';
import { parseWitnessPins } from './attest/witness-pin.js';
import { buildDaemon } from './app.js';
import { listenError, parseListenAddress } from '../http/listen-address.js';
import { avoidJsToWasmInliningCrash } from './v8-workaround.js';
import { daemonDeps } from './wiring.js';
import {
  metricsListenPlan,
  startMetricsListener,
  type MetricsListener,
  type MetricsListenOptions,
} from '../metrics/listener.js';
import { SvcMetrics } from '../metrics/registry.js';
import { AuthCache } from '../http/auth-cache.js';
import type { OpenApprovalLimits } from '../core/decision/open-approvals.js';
import { CredentialResolver } from '../integration/credentials.js';
import { openSecretBox } from '../integration/secret-key-source.js';
import { DeliveryLoop } from '../notify/delivery-loop.js';
import { DESTINATION_SENDERS, destinationSecrets } from '../notify/destination-senders.js';
import { DEFAULT_OUTBOUND_POLICY, type OutboundPolicy } from '../notify/outbound-policy.js';
import { closeOutboundConnections } from '../notify/outbound-http.js';
import { packageVersion } from '../http/version.js';
import { ReplicaHeartbeat } from './replica-heartbeat.js';

export interface DaemonStartOptions {
  dataDir: string;
  /** `--store` / `$SVC_STORE`: a PostgreSQL URL, else the data dir's SQLite database */
  store?: string;
  /** `--replica-id` (or `$SVC_REPLICA_ID`): this replica's name on PostgreSQL; default the host name */
  replicaId?: string;
  /** `--kek-file` and `--previous-kek-file`: the KEKs that open keys sealed in the database */
  kek?: KekChoice;
  /** `--pkcs11-*`: the PKCS#11 token that holds signing keys */
  pkcs11?: Pkcs11Choice;
  listen: string;
  allowInsecureHttp: boolean;
  tlsCert?: string;
  tlsKey?: string;
  clientCa?: string;
  logger?: boolean | Record<string, unknown>;
  /** Anchor when the oldest unanchored entry is this old (default 5 minutes). */
  anchorIntervalMs?: number;
  /** Anchor as soon as this many entries are unanchored (default 10,000). */
  anchorEntries?: number;
  /** The integration-operations document (YAML or JSON); without it those routes are absent. */
  integrationOps?: string;
  /** timeouts and connection cap (see `serverLimits`); default `DEFAULT_SERVER_LIMITS` */
  limits?: ServerLimits;
  /** `URL=ID=KEY`: witnesses asked to cosign each anchor (`svc witness serve`), each pinned by id and key. */
  witnesses?: readonly string[];
  /** `ID=FILE`: a PEM certificate or CA, the only trust root for that witness's https URL. */
  witnessCas?: readonly string[];
  /** RFC 3161 timestamp authority for each anchor; without one anchors carry a noop timestamp. */
  tsaUrl?: string;
  /** The bound on open approvals per requester and per task (default 50 and 20). */
  openApprovals?: OpenApprovalLimits;
  /** `false` (`--no-policy-answer-cache`): the policy engine evaluates every request */
  policyAnswerCache?: boolean;
  /** `--metrics-listen` and its companions: a separate listener serving GET /metrics; off without it. */
  metrics?: MetricsListenOptions & { tenantLabel?: boolean };
  /** What notifications may reach and how fast retries come (default: the production policy). */
  notify?: Partial<Pick<OutboundPolicy, 'allowLoopbackHttp' | 'allowPrivate' | 'timeoutMs'>> & {
    /** divides every retry wait (`--notify-retry-speedup`, tests and drills); 1 by default */
    retrySpeedup?: number;
    /** tests only, no flag: how often the loop polls the outbox (default from the speedup) */
    pollMs?: number;
  };
}

export interface RunningDaemon {
  url: string;
  app: FastifyInstance;
  store: Store;
  /** where GET /metrics is served, when `metrics` was given */
  metricsUrl?: string;
  /**
   * Drain and stop: `/readyz` turns unready and the listener stops accepting at once, idle
   * connections close, requests in flight finish and are answered (`Connection: close`),
   * pending entries are anchored, the store closes.
   */
  close(): Promise<void>;
  /**
   * Re-read the TLS certificate, key and client CA (kept as they were if the new ones are
   * refused), and apply the live settings given. A bad setting refuses the whole reload
   * before anything changes.
   */
  reload(live?: LiveSettings): Promise<DaemonReload>;
  /** Requests arrived and not yet answered. */
  inFlight(): number;
  /** Stop hard, during a drain that took too long: every connection destroyed. Returns how many requests were cut off. */
  stopHard(): number;
}

export interface DaemonReload {
  tls: TlsReload;
  /** the live settings applied, by flag name */
  applied: string[];
}

const NO_POOL = { total: 0, idle: 0, waiting: 0 };

export async function startDaemon(o: DaemonStartOptions): Promise<RunningDaemon> {
  avoidJsToWasmInliningCrash();
  const { host, port } = parseListenAddress(o.listen);
  const dir = new DataDir(o.dataDir, o.store, o.kek, o.pkcs11);
  // A bad KEK file, or a token that cannot be opened, stops the start before the store opens, naming its flag.
  kekSetOf(dir);
  const token = dir.tokenSettings;
  if (token) openToken(token);
  const tls = tlsChoice(dir, o);
  const https = tls ? tlsServerOptions(tls) : undefined;
  // A bad document stops the start, before anything opens, with every error and its line.
  const integration =
    o.integrationOps === undefined
      ? undefined
      : parseIntegrationDocument(readTextFile('integration-ops', o.integrationOps), o.integrationOps);
  const witnesses = parseWitnessPins(o.witnesses ?? [], o.witnessCas ?? []);
  const tsaUrl = o.tsaUrl === undefined ? undefined : attestUrl('tsa-url', o.tsaUrl);
  // Refused addresses and unreadable tokens stop the start before the store opens.
  if (o.metrics) metricsListenPlan(o.metrics);
  // Built before the store opens, to observe its commits; its collect callbacks read the
  // store and the attestor (made below) only when scraped.
  const authCache = new AuthCache();
  const metrics = o.metrics
    ? new SvcMetrics(
        {
          backlog: () => store.anchors.backlog(),
          approvalsPending: () => store.approvals.pendingCounts(new Date()),
          attestationFailures: () => attestor.failureCount(),
          tokenCache: () => authCache.stats,
          notifyCounts: () => store.notify.counts(),
          ...(dir.onPostgres ? { pool: () => store.poolStats?.() ?? NO_POOL } : {}),
        },
        { tenantLabel: o.metrics.tenantLabel === true },
      )
    : undefined;
  // The daemon never sleeps on SQLite's lock: it retries on timers, then answers 503.
  const activity = new RequestActivity();
  const store = await dir.openStore({
    lockWait: DAEMON_WAIT,
    checkpointer: true,
    applicationName: 'svc daemon',
    ...(o.replicaId !== undefined ? { replicaId: o.replicaId } : {}),
    quiet: () => activity.quiet(),
    ...(metrics ? { commits: metrics } : {}),
  });
  const keyring = new Keyring(dir, store);
  // Its log is the app's, built below; nothing logs before the app exists.
  const attestor = new AnchorAttestor(store, {
    witnesses,
    ...(tsaUrl ? { tsaUrl } : {}),
    log: { info: (obj, msg) => app.log.info(obj, msg), warn: (obj, msg) => app.log.warn(obj, msg) },
  });
  const drain = new Drain();
  const deps = {
    draining: () => drain.draining,
    ...daemonDeps(dir, store, {
      authMode: tls?.clientCa !== undefined ? 'mtls' : 'token',
      ...(integration ? { integration } : {}),
      attestations: () => attestor.health(),
      notifications: () => store.notify.counts(),
      ...(o.openApprovals ? { openApprovals: o.openApprovals } : {}),
      ...(o.policyAnswerCache === false ? { policyAnswerCache: false } : {}),
    }),
    authCache,
    ...(metrics ? { metrics } : {}),
  };
  const app = buildDaemon(deps, {
    ...(o.logger !== undefined ? { logger: o.logger } : {}),
    ...(https ? { https } : {}),
    ...(o.limits ? { limits: o.limits } : {}),
  });
  activity.watch(app.server);
  drain.install(app);
  const tlsReloader = tlsReloaderFor(app, tls);
  if (tls && tls.cert === dir.tlsCert && new X509Certificate(readFileSync(tls.cert)).ca) {
    app.log.warn(
      { cert: 'deployment certificate' },
      'the deployment certificate is a CA certificate (made by an older `svc init`); regenerate it as a leaf (docs/operations.md "Listener limits, TLS, and what answers never say")',
    );
  }
  // Calls cut off by the last stop are judged before any new request: unknown, never re-sent.
  let interrupted: number;
  try {
    // Keys sealed in the database and no KEK (or the wrong one) to open them: refuse to start,
    // saying which KEK is needed, rather than run a replica that cannot sign or open secrets.
    await keyring.checkSealed();
    if (dir.onPostgres && (await store.sealedKeys?.secretKey())) {
      await openSecretBox(dir, store, { create: false });
    }
    interrupted = await store.executions.markInterrupted();
  } catch (err) {
    // A pooled store left open would keep the process alive after the failed start.
    await store.close();
    throw err;
  }
  if (interrupted > 0) {
    app.log.warn({ executions: interrupted }, 'interrupted brokered executions recorded as outcome unknown');
  }
  // On PostgreSQL the replica records itself under the claim start-up recovery just took.
  const heartbeat = dir.onPostgres
    ? new ReplicaHeartbeat(
        store.replicas,
        { host: hostname(), version: packageVersion(), startedAt: new Date().toISOString() },
        app.log,
      )
    : undefined;
  await heartbeat?.start();
  try {
    await app.listen({ host, port });
  } catch (err) {
    await heartbeat?.stop();
    await store.close();
    throw listenError(o.listen, err);
  }
  const anchors = new AnchorSchedule(
    {
      anchors: store.anchors,
      signer: (t) => keyring.signer(t),
      attest: (anchor) => attestor.attest(anchor),
      clock: () => new Date(),
      log: app.log,
    },
    {
      intervalMs: o.anchorIntervalMs ?? DEFAULT_ANCHOR_INTERVAL_MS,
      entries: o.anchorEntries ?? DEFAULT_ANCHOR_ENTRIES,
    },
  );
  anchors.start();
  const notify = notifyLoop(dir, store, o, app.log, metrics, () => activity.count > 0);
  notify.start();
  let metricsListener: MetricsListener | undefined;
  if (metrics && o.metrics) {
    try {
      metricsListener = await startMetricsListener(metrics, o.metrics);
    } catch (err) {
      await app.close();
      await anchors.stop({ flush: false });
      await notify.close();
      await attestor.close();
      await heartbeat?.stop();
      await store.close();
      throw err;
    }
  }
  const addr = app.server.address();
  const actualPort = typeof addr === 'object' && addr ? addr.port : port;
  const shownHost = host.includes(':') ? `[${host}]` : host;
  const scheme = tls ? 'https' : 'http';
  // Record where clients on this machine reach this daemon, so the CLI needs no SVC_ENDPOINT.
  // A convenience only: a data dir that cannot take the file still gets a running daemon.
  // Several daemons may serve one data dir; the one recorded first keeps discovery while it
  // runs, so a later one that stops never leaves daemon.json naming its dead port.
  const recorded = liveRecordedDaemon(dir);
  if (recorded !== undefined) {
    app.log.info(
      { recorded: recorded.url, pid: recorded.pid },
      'another daemon on this data dir is recorded in daemon.json and still runs; left as is',
    );
  } else
    try {
      writeDaemonAddress(dir, {
        url: `${scheme}://${clientHost(host)}:${actualPort}`,
        tls: tls !== undefined,
        mutual_tls: tls?.clientCa !== undefined,
        ca_cert: tls && selfSignedCertificate(tls.cert) ? resolve(tls.cert) : null,
        pid: process.pid,
        started_at: new Date().toISOString(),
      });
    } catch (err) {
      app.log.warn({ err }, 'could not record the daemon address in the data dir');
    }
  let closing: Promise<void> | undefined;
  return {
    url: `${scheme}://${shownHost}:${actualPort}`,
    app,
    store,
    ...(metricsListener ? { metricsUrl: metricsListener.url } : {}),
    inFlight: () => activity.count,
    stopHard: () => {
      const cut = activity.count;
      app.log.warn({ requests: cut }, 'daemon stopping hard: every connection destroyed');
      app.server.closeAllConnections();
      return cut;
    },
    reload: async (live = {}) => {
      const settings = checkLiveSettings(live);
      const tlsDone = await tlsReloader.reload();
      const applied: string[] = [];
      if (settings.anchorIntervalMs !== undefined || settings.anchorEntries !== undefined) {
        anchors.retune({
          ...(settings.anchorIntervalMs !== undefined ? { intervalMs: settings.anchorIntervalMs } : {}),
          ...(settings.anchorEntries !== undefined ? { entries: settings.anchorEntries } : {}),
        });
      }
      // The rules object is read by each decision, so the next one sees the new bound.
      if (settings.openApprovals !== undefined) deps.rules.openApprovals = settings.openApprovals;
      for (const key of Object.keys(settings) as (keyof LiveSettings)[]) applied.push(LIVE_KEYS[key]);
      if (applied.length > 0) app.log.info({ applied, settings }, 'live settings reloaded');
      return { tls: tlsDone, applied };
    },
    close: () =>
      (closing ??= (async () => {
        // Unready and no longer accepting in the same turn as the signal; the rest follows.
        drain.begin();
        const appClosed = app.close();
        // No new claims; the sends in flight finish within their time-out and are recorded.
        const notifyClosed = notify.close();
        // The log says when and how the daemon stopped, not only that requests ceased.
        app.log.info(
          { inFlight: activity.count },
          'daemon stopping: no new connections; in-flight requests finish, then the store closes',
        );
        await metricsListener?.close();
        await appClosed;
        await notifyClosed;
        await closeOutboundConnections();
        await anchors.stop({ flush: true });
        await attestor.close();
        await heartbeat?.stop();
        await store.close();
        app.log.info('daemon stopped');
      })()),
  };
}

/** How often approvals that expired pending are looked for (`approval.expired`), and how many at a time. */
const EXPIRY_SWEEP_MS = 5000;
const EXPIRY_BATCH = 100;
/** Reminders are minutes apart at the least; a pair is looked for every few seconds. */
const REMINDER_SWEEP_MS = 5000;
const REMINDER_BATCH = 100;

/** The outbox's delivery, on its own timers: never on a decision's path. */
function notifyLoop(
  dir: DataDir,
  store: Store,
  o: DaemonStartOptions,
  log: FastifyInstance['log'],
  metrics: SvcMetrics | undefined,
  busy: () => boolean,
): DeliveryLoop {
  const credentials = new CredentialResolver(store.secrets, () =>
    openSecretBox(dir, store, { create: false }),
  );
  const policy: OutboundPolicy = {
    ...DEFAULT_OUTBOUND_POLICY,
    ...(o.notify?.allowLoopbackHttp !== undefined ? { allowLoopbackHttp: o.notify.allowLoopbackHttp } : {}),
    ...(o.notify?.allowPrivate !== undefined ? { allowPrivate: o.notify.allowPrivate } : {}),
    ...(o.notify?.timeoutMs !== undefined ? { timeoutMs: o.notify.timeoutMs } : {}),
  };
  const speedup = o.notify?.retrySpeedup ?? 1;
  return new DeliveryLoop(
    {
      repo: store.notify,
      durable: () => store.durable(),
      busy,
      secrets: destinationSecrets(credentials),
      senders: DESTINATION_SENDERS,
      policy,
      clock: () => new Date(),
      random: Math.random,
      log: {
        info: (obj, msg) => log.info(obj, msg),
        warn: (obj, msg) => log.warn(obj, msg),
        error: (obj, msg) => log.error(obj, msg),
      },
      ...(metrics ? { observer: metrics } : {}),
      sweeps: [
        {
          name: 'approval expiry',
          everyMs: Math.max(100, Math.round(EXPIRY_SWEEP_MS / speedup)),
          // Batches until none is left, bounded so one turn never runs unbounded.
          run: async (now) => {
            for (let i = 0; i < 20; i++) {
              if ((await store.notify.announceExpired(now, EXPIRY_BATCH)) < EXPIRY_BATCH) return;
            }
          },
        },
        {
          name: 'approval reminders',
          everyMs: Math.max(100, Math.round(REMINDER_SWEEP_MS / speedup)),
          run: async (now) => {
            for (let i = 0; i < 20; i++) {
              if ((await store.notify.announceReminders(now, REMINDER_BATCH)) < REMINDER_BATCH) return;
            }
          },
        },
      ],
    },
    // A compressed schedule is looked at more often, so its short waits are kept.
    { speedup, pollMs: o.notify?.pollMs ?? Math.max(100, Math.round(1000 / speedup)) },
  );
}
