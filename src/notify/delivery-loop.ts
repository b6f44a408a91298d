import { hostname } from 'node:os';
import { randomBytes } from 'node:crypto';
import type { NotifyEvent } from '../core/notify/event.js';
import { retryDelayMs } from '../core/notify/retry-schedule.js';
import type { DeliveryAttempt, DueDelivery, NotifyDestination, NotifyRepo } from '../store/notify-ports.js';
import type { OutboundPolicy, SendOutcome } from './outbound-policy.js';

/** What a kind's sender is given for one attempt. */
export interface SendContext {
  destination: NotifyDestination;
  event: NotifyEvent;
  policy: OutboundPolicy;
  now: Date;
  /**
   * The destination's secrets opened from the secret store at the moment of use, newest
   * first; throws when they cannot be opened (the loop records `secret_unavailable`). Opened
   * only by a sender that needs them.
   */
  secrets: () => Promise<string[]>;
  /** the store's notification operations (a chat sender remembers the messages it posted) */
  repo: NotifyRepo;
}

/** One kind's sender: one attempt at one event for one destination. Throwing is a coded retry. */
export type DestinationSender = (ctx: SendContext) => Promise<SendOutcome>;

/** A secret that cannot be opened, told apart from a sender's own failure. */
export class SecretUnavailable extends Error {
  override readonly name = 'SecretUnavailable';
}

/** What the loop tells the metrics: one call per attempt recorded. */
export interface DeliveryObserver {
  attempted(
    kind: string,
    outcome: 'delivered' | 'retry' | 'dead' | 'gone' | 'refused',
    error: string | null,
  ): void;
}

export interface DeliveryLoopDeps {
  repo: NotifyRepo;
  /** the destination's secrets opened from the secret store, newest first; throws when it cannot */
  secrets: (destination: NotifyDestination) => Promise<string[]>;
  senders: Partial<Record<NotifyDestination['kind'], DestinationSender>>;
  policy: OutboundPolicy;
  clock: () => Date;
  /** [0, 1): the retry schedule's jitter */
  random: () => number;
  log: {
    info: (obj: object, msg: string) => void;
    warn: (obj: object, msg: string) => void;
    error: (obj: object, msg: string) => void;
  };
  observer?: DeliveryObserver;
  /**
   * Whether the daemon is answering requests right now. While it is, the loop keeps at most
   * `BUSY_CONCURRENCY` sends in flight: deliveries share the process with decisions, and a
   * backlog (a flood of `decision.refused`, a receiver back after an outage) must not take
   * the decisions' CPU. Once the requests stop, the loop uses its whole concurrency again.
   */
  busy?: () => boolean;
  /**
   * Resolves once every commit so far is durable (`Store.durable`): nothing is sent for a
   * change that a crash could still undo. Absent: commits are durable when they return.
   */
  durable?: () => Promise<void> | undefined;
  /** timers of the notification subsystem that run with the loop (the approval expiry sweep) */
  sweeps?: readonly { name: string; everyMs: number; run: (now: Date) => Promise<unknown> }[];
}

export interface DeliveryLoopOptions {
  /** how often the outbox is looked at when nothing woke the loop (default 1 s) */
  pollMs?: number;
  /** sends in flight at once, and so the most claimed per look (default 16) */
  concurrency?: number;
  /** divides every retry wait; 1 in production (`--notify-retry-speedup`, for tests and drills) */
  speedup?: number;
  /** this loop's lease owner; default host, pid and a random part, new at every start */
  owner?: string;
}

export const DEFAULT_POLL_MS = 1000;
export const DEFAULT_CONCURRENCY = 16;
/**
 * While the daemon is answering requests (`busy`): one send at a time, and a claim at most
 * every `BUSY_GAP_MS`, so deliveries take a bounded share of the process (at most about 50
 * a second, measured at a few per cent of a saturated daemon's main thread) however large
 * the backlog; the rest waits for a quiet moment, when the whole concurrency drains it.
 */
export const BUSY_CONCURRENCY = 1;
export const BUSY_GAP_MS = 20;
/**
 * Dead letters are kept this long, then purged (semantics.md: 30 days); delivered and
 * disabled deliveries too, so the outbox does not grow with traffic forever.
 */
export const DEAD_LETTER_KEEP_MS = 30 * 86_400_000;
const PURGE_EVERY_MS = 86_400_000;

/**
 * The daemon's delivery of outbound events, on its own timers and never on a decision's
 * path: it claims due deliveries under a lease (several daemons deliver each once), sends
 * each through its kind's sender with a bounded number in flight, and records the outcome
 * while it still holds the lease. A lease runs out after twice the send time-out and a
 * second, so a daemon killed mid-send leaves its deliveries to another (or to itself after a
 * restart, under a new owner) and a live one never loses a lease it is still using.
 */
export class DeliveryLoop {
  readonly owner: string;
  private readonly pollMs: number;
  private readonly concurrency: number;
  private readonly speedup: number;
  private readonly inFlight = new Set<Promise<void>>();
  private readonly timers: NodeJS.Timeout[] = [];
  private looking: Promise<void> | undefined;
  private again = false;
  /** when the last claim was made while busy, and the timer of the next one */
  private lastBusyClaim = -Infinity;
  private paceTimer: NodeJS.Timeout | undefined;
  private stopped = false;
  private unlisten: (() => void) | undefined;

  constructor(
    private readonly deps: DeliveryLoopDeps,
    opts: DeliveryLoopOptions = {},
  ) {
    this.pollMs = opts.pollMs ?? DEFAULT_POLL_MS;
    this.concurrency = opts.concurrency ?? DEFAULT_CONCURRENCY;
    this.speedup = opts.speedup ?? 1;
    this.owner = opts.owner ?? `${hostname()}:${process.pid}:${randomBytes(6).toString('hex')}`;
  }

  /** How long a claim holds: the send's whole time-out twice, and a second to record it. */
  get leaseMs(): number {
    return 2 * this.deps.policy.timeoutMs + 1000;
  }

  /** Sends in flight now. */
  get sending(): number {
    return this.inFlight.size;
  }

  start(): void {
    const every = (ms: number, run: () => unknown) => {
      const t = setInterval(run, ms);
      t.unref();
      this.timers.push(t);
    };
    every(this.pollMs, () => void this.wake());
    // An event this process commits is looked for at once; the poll is for the rest (another
    // replica's commits, retries falling due, leases running out).
    this.unlisten = this.deps.repo.onEventsCommitted(() => void this.wake());
    every(PURGE_EVERY_MS, () => void this.purge());
    for (const s of this.deps.sweeps ?? []) every(s.everyMs, () => void this.sweep(s));
    void this.purge();
    void this.wake();
  }

  /** Look at the outbox now (a local commit enqueued something); overlapping calls coalesce. */
  wake(): Promise<void> {
    if (this.stopped) return Promise.resolve();
    if (this.looking) {
      this.again = true;
      return this.looking;
    }
    this.looking = this.claimAndSend().finally(() => {
      this.looking = undefined;
      if (this.again) {
        this.again = false;
        void this.wake();
      }
    });
    return this.looking;
  }

  /**
   * Stop claiming, then wait for the sends in flight: each is bounded by the send time-out,
   * so this never waits longer than that (and the record that follows).
   */
  async close(): Promise<void> {
    this.stopped = true;
    this.unlisten?.();
    for (const t of this.timers) clearInterval(t);
    clearTimeout(this.paceTimer);
    await this.looking;
    while (this.inFlight.size > 0) await Promise.allSettled([...this.inFlight]);
  }

  private async claimAndSend(): Promise<void> {
    const busy = this.deps.busy?.() === true;
    const limit = busy ? Math.min(BUSY_CONCURRENCY, this.concurrency) : this.concurrency;
    const free = limit - this.inFlight.size;
    if (free <= 0) return;
    if (busy) {
      const wait = this.lastBusyClaim + BUSY_GAP_MS - performance.now();
      if (wait > 0) {
        if (this.paceTimer === undefined) {
          this.paceTimer = setTimeout(() => {
            this.paceTimer = undefined;
            void this.wake();
          }, wait);
          this.paceTimer.unref();
        }
        return;
      }
      this.lastBusyClaim = performance.now();
    }
    let due: DueDelivery[];
    try {
      await this.deps.durable?.();
      if (this.stopped) return;
      const now = this.deps.clock();
      due = await this.deps.repo.claimDue(
        now.toISOString(),
        this.owner,
        new Date(now.getTime() + this.leaseMs).toISOString(),
        free,
      );
    } catch (err) {
      this.deps.log.error({ err }, 'notify: cannot claim due deliveries');
      return;
    }
    for (const d of due) {
      const p: Promise<void> = this.deliver(d).finally(() => {
        this.inFlight.delete(p);
        // A freed slot takes the next due delivery without waiting for the poll.
        if (!this.stopped) void this.wake();
      });
      this.inFlight.add(p);
    }
  }

  private async deliver(d: DueDelivery): Promise<void> {
    const { destination, event, delivery } = d;
    const outcome = await this.send(d);
    const at = this.deps.clock();
    const attempts = delivery.attempts + 1;
    let recorded: DeliveryAttempt['outcome'];
    let nextAttemptAt: string | null = null;
    if (outcome.kind === 'delivered' || outcome.kind === 'gone') recorded = outcome.kind;
    else {
      const wait = retryDelayMs(attempts, this.deps.random, this.speedup);
      recorded = wait === null ? 'dead' : 'retry';
      if (wait !== null) nextAttemptAt = new Date(at.getTime() + wait).toISOString();
    }
    const error = outcome.kind === 'retry' || outcome.kind === 'refused' ? outcome.error : null;
    const status = outcome.kind === 'refused' ? null : outcome.status;
    const where = {
      tenant_id: event.tenantId,
      event_id: event.id,
      destination_id: destination.id,
      attempts,
    };
    try {
      const held = await this.deps.repo.recordAttempt({
        tenantId: event.tenantId,
        eventId: event.id,
        destinationId: destination.id,
        owner: this.owner,
        at: at.toISOString(),
        outcome: recorded,
        status,
        error,
        nextAttemptAt,
      });
      if (!held) {
        // Our lease ran out and another daemon claimed it, or its destination was removed
        // meanwhile: the record that stands is not ours to overwrite.
        this.deps.log.warn(
          where,
          'notify: the delivery is no longer ours (lease run out, or destination removed); this outcome is dropped',
        );
        return;
      }
    } catch (err) {
      // The lease runs out and the delivery is claimed again: at least once, never lost.
      this.deps.log.error({ ...where, err }, 'notify: cannot record a delivery attempt');
      return;
    }
    this.deps.observer?.attempted(
      destination.kind,
      outcome.kind === 'refused' ? 'refused' : recorded,
      error ?? (outcome.kind === 'gone' ? 'gone' : null),
    );
    if (recorded === 'gone') {
      this.deps.log.warn(where, 'notify: the receiver answered 410 Gone; the destination is disabled');
    } else if (recorded === 'dead') {
      this.deps.log.warn({ ...where, error }, 'notify: delivery failed at every attempt; now a dead letter');
    } else if (recorded === 'retry') {
      this.deps.log.info(
        { ...where, error, next_attempt_at: nextAttemptAt },
        'notify: delivery failed; will retry',
      );
    }
  }

  /** Never throws: a sender that throws or a secret that cannot be opened is a coded retry. */
  private async send(d: DueDelivery): Promise<SendOutcome> {
    const sender = this.deps.senders[d.destination.kind];
    if (!sender) return { kind: 'retry', status: null, error: 'unsupported_kind' };
    const secrets = async (): Promise<string[]> => {
      try {
        return await this.deps.secrets(d.destination);
      } catch {
        throw new SecretUnavailable();
      }
    };
    try {
      return await sender({
        destination: d.destination,
        event: d.event,
        policy: this.deps.policy,
        now: this.deps.clock(),
        secrets,
        repo: this.deps.repo,
      });
    } catch (err) {
      if (err instanceof SecretUnavailable)
        return { kind: 'retry', status: null, error: 'secret_unavailable' };
      this.deps.log.error(
        { tenant_id: d.event.tenantId, destination_id: d.destination.id, err_name: (err as Error).name },
        'notify: the sender failed unexpectedly',
      );
      return { kind: 'retry', status: null, error: 'internal' };
    }
  }

  private async purge(): Promise<void> {
    if (this.stopped) return;
    try {
      const before = new Date(this.deps.clock().getTime() - DEAD_LETTER_KEEP_MS).toISOString();
      const n = await this.deps.repo.purgeFinished(before);
      if (n > 0)
        this.deps.log.info({ purged: n, before }, 'notify: finished deliveries older than 30 days purged');
    } catch (err) {
      this.deps.log.error({ err }, 'notify: cannot purge old finished deliveries');
    }
  }

  private async sweep(s: { name: string; run: (now: Date) => Promise<unknown> }): Promise<void> {
    if (this.stopped) return;
    try {
      await s.run(this.deps.clock());
    } catch (err) {
      this.deps.log.error({ err, sweep: s.name }, 'notify: a sweep failed; it runs again at its next turn');
    }
  }
}
