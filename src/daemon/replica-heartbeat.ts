import type { ReplicaRepo, ReplicaSelf } from '../store/replica-ports.js';

/** How often a replica on PostgreSQL records that it is alive (`svc store replicas`). */
export const HEARTBEAT_MS = 5000;

interface HeartbeatLog {
  warn(obj: object, msg: string): void;
  info(obj: object, msg: string): void;
}

/**
 * The replica's heartbeat, on its own timer and its claim's own connection: never on a
 * decision's path. A beat that fails is logged (once per run of failures, then once when
 * beats succeed again) and never stops the daemon; what tells a live replica from a dead
 * one is its claim, which the heartbeat only shows.
 */
export class ReplicaHeartbeat {
  private timer: NodeJS.Timeout | undefined;
  private beating: Promise<void> | undefined;
  private failing = false;
  private stopped = false;

  constructor(
    private readonly replicas: ReplicaRepo,
    private readonly self: ReplicaSelf,
    private readonly log: HeartbeatLog,
    private readonly everyMs: number = HEARTBEAT_MS,
  ) {}

  /** The first beat, awaited (so the replica is listed once the daemon listens), then the timer. */
  async start(): Promise<void> {
    await this.tick();
    if (this.stopped) return;
    this.timer = setInterval(() => void this.tick(), this.everyMs);
    this.timer.unref();
  }

  /** No beat after this; one in flight finishes first (the store closes after it). */
  async stop(): Promise<void> {
    this.stopped = true;
    clearInterval(this.timer);
    await this.beating;
  }

  private tick(): Promise<void> {
    if (this.stopped) return Promise.resolve();
    // A beat still waiting on a slow database is not doubled.
    this.beating ??= this.replicas
      .beat(this.self)
      .then(
        () => {
          if (this.failing) this.log.info({}, 'replica heartbeat recorded again');
          this.failing = false;
        },
        (err: unknown) => {
          if (!this.failing) {
            this.log.warn(
              { err: (err as Error).message },
              'replica heartbeat failed; the daemon keeps serving and logs again when a beat succeeds',
            );
          }
          this.failing = true;
        },
      )
      .finally(() => {
        this.beating = undefined;
      });
    return this.beating;
  }
}
