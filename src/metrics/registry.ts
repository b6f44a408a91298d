import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from 'prom-client';
import type { CommitObserver } from '../store/commit-observer.js';
import type { AnchorBacklog } from '../store/evidence-ports.js';
import type { PoolStats } from '../store/ports.js';
import type { NotifyCounts } from '../store/notify-ports.js';
import type { DeliveryObserver } from '../notify/delivery-loop.js';

/** What a decision came to, as the daemon answered it. */
export interface DecisionSeen {
  /** `action` or `brokered` */
  route: string;
  /** allowed, deferred, refused, conflict, no_deferral, or error when it threw */
  outcome: string;
  /** the refusal or error code; empty when there is none */
  code: string;
  tenantId: string;
  seconds: number;
}

/** Where the daemon reports what it sees; the metrics registry is one such place. */
export interface DecisionMetrics {
  decided(seen: DecisionSeen): void;
}

/** Store reads made on scrape only, never on a decision's path. */
export interface MetricsSources {
  /** Every tenant's journal size and first unanchored entry: one cheap read, no log scan. */
  backlog?: () => Promise<AnchorBacklog[]>;
  /** Attestation answers that failed or were refused since start (counts only). */
  attestationFailures?: () => number;
  /** Approvals pending and unexpired, per tenant with any. */
  approvalsPending?: () => Promise<{ tenantId: string; count: number }[]>;
  /** PostgreSQL: the connection pool's state (absent on SQLite: no pool gauges). */
  pool?: () => PoolStats;
  /** The verified-token cache's lookups since start. */
  tokenCache?: () => { hits: number; misses: number };
  /** The outbox: deliveries pending and dead, destinations disabled (every tenant). */
  notifyCounts?: () => Promise<NotifyCounts>;
  clock?: () => Date;
}

export interface MetricsOptions {
  /** Label per-tenant series with the tenant id; off by default (one series per tenant). */
  tenantLabel?: boolean;
  /** prom-client's process and Node.js metrics; on by default. */
  defaultMetrics?: boolean;
}

const MISNAMED_DEFAULTS = [
  'nodejs_active_handles_total',
  'nodejs_active_requests_total',
  'nodejs_active_resources_total',
];

// Decisions commit in well under a millisecond to a few hundred on a slow disk.
// The commit queue batches up to 256 jobs; an fsync takes tens of microseconds (tmpfs, NVMe
// with a write cache) to tens of milliseconds (spinning or networked disks).
const BATCH_BUCKETS = [1, 2, 4, 8, 16, 32, 64, 128, 256];
const FSYNC_BUCKETS = [0.0001, 0.00025, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 1];
const DECISION_BUCKETS = [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5];

/**
 * The daemon's metrics in one prom-client registry of its own (never the global one, so
 * two daemons in one process, as in tests, do not share series). Counting is a label
 * lookup and an add; store reads happen only in collect callbacks, at scrape time.
 */
export class SvcMetrics implements DecisionMetrics, CommitObserver, DeliveryObserver {
  readonly registry = new Registry();
  private readonly decisions: Counter<string>;
  private readonly duration: Histogram<string>;
  private readonly batchSize: Histogram;
  private readonly fsyncSeconds: Histogram;
  private readonly storeBusy: Counter;
  private readonly notifyDeliveries: Counter<string>;
  private readonly notifyFailures: Counter<string>;
  private requests: { total: Counter<string>; duration: Histogram<string> } | undefined;
  private readonly tenantLabel: boolean;

  constructor(sources: MetricsSources = {}, opts: MetricsOptions = {}) {
    this.tenantLabel = opts.tenantLabel === true;
    const tenant = this.tenantLabel ? ['tenant'] : [];
    const registers = [this.registry];
    this.decisions = new Counter({
      name: 'svc_decisions_total',
      help: 'Decisions answered, by route, outcome and refusal or error code.',
      labelNames: ['route', 'outcome', 'code', ...tenant],
      registers,
    });
    this.duration = new Histogram({
      name: 'svc_decision_duration_seconds',
      help: 'Time from the decision request being parsed to its answer being ready, durable commit included.',
      labelNames: ['route'],
      buckets: DECISION_BUCKETS,
      registers,
    });
    this.batchSize = new Histogram({
      name: 'svc_commit_batch_size',
      help: 'Jobs (decisions, execution outcomes) committed together in one SQLite group commit.',
      buckets: BATCH_BUCKETS,
      registers,
    });
    this.fsyncSeconds = new Histogram({
      name: 'svc_commit_fsync_seconds',
      help: 'Duration of each fsync that makes SQLite group commits durable.',
      buckets: FSYNC_BUCKETS,
      registers,
    });
    this.storeBusy = new Counter({
      name: 'svc_store_busy_total',
      help: 'Writes refused as busy (503) because another process held the SQLite write lock past their deadline.',
      registers,
    });
    this.notifyDeliveries = new Counter({
      name: 'svc_notify_deliveries_total',
      help: 'Notification delivery attempts recorded, by destination kind and outcome (delivered, retry, dead, gone, refused).',
      labelNames: ['kind', 'outcome'],
      registers,
    });
    this.notifyFailures = new Counter({
      name: 'svc_notify_failures_total',
      help: 'Notification delivery attempts that failed, by destination kind and short error code (timeout, connect, status_500, private_address, ...).',
      labelNames: ['kind', 'error'],
      registers,
    });
    const clock = sources.clock ?? (() => new Date());
    const tenantLabelled = this.tenantLabel;
    const backlog = sources.backlog;
    if (backlog) {
      // One read serves both gauges of a scrape: the first collect fetches, the second reuses it.
      let pending: Promise<AnchorBacklog[]> | undefined;
      const read = () => (pending ??= backlog().finally(() => setImmediate(() => (pending = undefined))));
      new Gauge({
        name: 'svc_journal_entries',
        help: 'Entries in the tenant journals (summed over tenants unless the tenant label is on).',
        labelNames: tenant,
        registers,
        async collect() {
          const rows = await read();
          this.reset();
          if (tenantLabelled) for (const r of rows) this.set({ tenant: r.tenantId }, r.size);
          else this.set(rows.reduce((n, r) => n + r.size, 0));
        },
      });
      new Gauge({
        name: 'svc_anchor_age_seconds',
        help: 'Age of the oldest journal entry no signed tree head covers yet; 0 when all are anchored.',
        labelNames: tenant,
        registers,
        async collect() {
          const rows = await read();
          const now = clock().getTime();
          const age = (r: AnchorBacklog) =>
            r.firstUnanchoredAt === null ? 0 : Math.max(0, (now - Date.parse(r.firstUnanchoredAt)) / 1000);
          this.reset();
          if (tenantLabelled) for (const r of rows) this.set({ tenant: r.tenantId }, age(r));
          else this.set(rows.reduce((m, r) => Math.max(m, age(r)), 0));
        },
      });
    }
    const pendingApprovals = sources.approvalsPending;
    if (pendingApprovals) {
      new Gauge({
        name: 'svc_approvals_pending',
        help: 'Approvals waiting for a human decision (pending and unexpired), summed over tenants unless the tenant label is on.',
        labelNames: tenant,
        registers,
        async collect() {
          const rows = await pendingApprovals();
          this.reset();
          if (tenantLabelled) for (const r of rows) this.set({ tenant: r.tenantId }, r.count);
          else this.set(rows.reduce((n, r) => n + r.count, 0));
        },
      });
    }
    const failures = sources.attestationFailures;
    if (failures) {
      new Counter({
        name: 'svc_attestation_failures_total',
        help: 'Witness cosignatures and timestamps asked for and not obtained since start.',
        registers,
        collect() {
          this.reset();
          this.inc(failures());
        },
      });
    }
    const pool = sources.pool;
    if (pool) {
      const gauge = (name: string, help: string, read: (p: PoolStats) => number) =>
        new Gauge({
          name,
          help,
          registers,
          collect() {
            this.set(read(pool()));
          },
        });
      gauge(
        'svc_postgres_pool_connections',
        'PostgreSQL connections open in the pool, idle or in use.',
        (p) => p.total,
      );
      gauge('svc_postgres_pool_idle_connections', 'PostgreSQL connections open and idle.', (p) => p.idle);
      gauge(
        'svc_postgres_pool_waiting_queries',
        'Queries waiting for a free PostgreSQL connection.',
        (p) => p.waiting,
      );
    }
    const tokenCache = sources.tokenCache;
    if (tokenCache) {
      new Counter({
        name: 'svc_token_cache_hits_total',
        help: 'Bearer tokens verified from the cache (one hash and one comparison, no store read).',
        registers,
        collect() {
          this.reset();
          this.inc(tokenCache().hits);
        },
      });
      new Counter({
        name: 'svc_token_cache_misses_total',
        help: 'Bearer tokens not in the cache (first use, expired, changed, or wrong): looked up in the store.',
        registers,
        collect() {
          this.reset();
          this.inc(tokenCache().misses);
        },
      });
    }
    const notifyCounts = sources.notifyCounts;
    if (notifyCounts) {
      // One read serves both gauges of a scrape, as for the journal backlog.
      let pending: Promise<NotifyCounts> | undefined;
      const read = () =>
        (pending ??= notifyCounts().finally(() => setImmediate(() => (pending = undefined))));
      new Gauge({
        name: 'svc_notify_backlog',
        help: 'Notification deliveries waiting to be sent or retried, over every tenant.',
        registers,
        async collect() {
          this.set((await read()).pending);
        },
      });
      new Gauge({
        name: 'svc_notify_dead_letters',
        help: 'Notification deliveries that failed every attempt and wait for a redeliver (kept 30 days).',
        registers,
        async collect() {
          this.set((await read()).dead);
        },
      });
    }
    if (opts.defaultMetrics !== false) {
      collectDefaultMetrics({ register: this.registry });
      // prom-client names these gauges `_total`, which Prometheus reserves for counters
      // (promtool check metrics refuses them); the same counts remain per type in
      // nodejs_active_handles, nodejs_active_requests and nodejs_active_resources.
      for (const name of MISNAMED_DEFAULTS) this.registry.removeSingleMetric(name);
    }
  }

  decided(seen: DecisionSeen): void {
    const labels: Record<string, string> = { route: seen.route, outcome: seen.outcome, code: seen.code };
    if (this.tenantLabel) labels.tenant = seen.tenantId;
    this.decisions.inc(labels);
    this.duration.observe({ route: seen.route }, seen.seconds);
  }

  batch(size: number): void {
    this.batchSize.observe(size);
  }

  fsync(seconds: number): void {
    this.fsyncSeconds.observe(seconds);
  }

  busy(jobs: number): void {
    this.storeBusy.inc(jobs);
  }

  attempted(kind: string, outcome: string, error: string | null): void {
    this.notifyDeliveries.inc({ kind, outcome });
    if (error !== null) this.notifyFailures.inc({ kind, error });
  }

  /** A request the console answered; the series exist once the first is counted. */
  request(route: string, method: string, status: number, seconds: number): void {
    this.requests ??= {
      total: new Counter({
        name: 'svc_console_requests_total',
        help: 'Requests the console answered, by route pattern, method and status.',
        labelNames: ['route', 'method', 'status'],
        registers: [this.registry],
      }),
      duration: new Histogram({
        name: 'svc_console_request_duration_seconds',
        help: 'Time the console took to answer, by route pattern.',
        labelNames: ['route'],
        buckets: DECISION_BUCKETS,
        registers: [this.registry],
      }),
    };
    this.requests.total.inc({ route, method, status: String(status) });
    this.requests.duration.observe({ route }, seconds);
  }

  get contentType(): string {
    return this.registry.contentType;
  }

  /** The Prometheus text exposition of every metric. */
  text(): Promise<string> {
    return this.registry.metrics();
  }
}
