import type { AnchorRepo, HeadSigner, StoredHead } from '../store/evidence-ports.js';

export interface AnchorScheduleOptions {
  /** Anchor a log whose oldest unanchored entry is this old (default 5 minutes). */
  intervalMs: number;
  /** Anchor a log as soon as this many entries are unanchored (default 10,000). */
  entries: number;
  /** How often the backlog is looked at: one small query over every tenant. */
  checkMs?: number;
}

export interface AnchorScheduleDeps {
  anchors: AnchorRepo;
  signer: (tenantId: string) => Promise<HeadSigner>;
  /** Timestamp and witness cosignatures for a newly signed head; never throws. */
  attest?: (anchor: StoredHead) => Promise<void>;
  clock: () => Date;
  log: {
    info: (obj: object, msg: string) => void;
    error: (obj: object, msg: string) => void;
  };
}

export const DEFAULT_ANCHOR_INTERVAL_MS = 5 * 60_000;
export const DEFAULT_ANCHOR_ENTRIES = 10_000;
/** What `--anchor-interval` (and its live reload) accepts: 1 second to 1 day. */
export const ANCHOR_INTERVAL_BOUNDS = { minMs: 1000, maxMs: 86_400_000 };

/**
 * Signs tree heads on a schedule, never per decision (DESIGN.md): a log is anchored when
 * its oldest unanchored entry has waited the interval, or when the entry threshold is
 * reached, whichever comes first. The state lives in the store (the last head's size and
 * the first uncovered entry's time), so a restart picks up where the last run stopped.
 */
export class AnchorSchedule {
  private timer: NodeJS.Timeout | undefined;
  private running: Promise<void> | undefined;
  /** Last failure per tenant, logged once until it changes, so a broken key does not flood the log. */
  private readonly failing = new Map<string, string>();

  constructor(
    private readonly deps: AnchorScheduleDeps,
    private opts: AnchorScheduleOptions,
  ) {}

  /** New thresholds, used from the next look at the backlog (a reload); the timer keeps its pace. */
  retune(opts: Partial<Pick<AnchorScheduleOptions, 'intervalMs' | 'entries'>>): void {
    this.opts = { ...this.opts, ...opts };
  }

  start(): void {
    const every = this.opts.checkMs ?? Math.min(1000, this.opts.intervalMs);
    this.timer = setInterval(() => void this.tick(), every);
    this.timer.unref();
  }

  /** One look at the backlog; overlapping calls share the run in progress. */
  tick(): Promise<void> {
    this.running ??= this.anchorDue(false).finally(() => (this.running = undefined));
    return this.running;
  }

  /** Stop the timer; with `flush`, anchor every log with unanchored entries (a clean stop). */
  async stop(opts: { flush: boolean }): Promise<void> {
    clearInterval(this.timer);
    this.timer = undefined;
    await this.running;
    if (opts.flush) await this.anchorDue(true);
  }

  private async anchorDue(everything: boolean): Promise<void> {
    const now = this.deps.clock().getTime();
    let backlog;
    try {
      backlog = await this.deps.anchors.backlog();
    } catch (err) {
      this.deps.log.error({ err }, 'anchor schedule: cannot read the journal backlog');
      return;
    }
    for (const b of backlog) {
      const pending = b.size - b.anchoredSize;
      if (pending <= 0) continue;
      const waited = b.firstUnanchoredAt === null ? 0 : now - Date.parse(b.firstUnanchoredAt);
      if (everything || pending >= this.opts.entries || waited >= this.opts.intervalMs) {
        await this.anchor(b.tenantId);
      }
    }
  }

  private async anchor(tenantId: string): Promise<StoredHead | undefined> {
    try {
      const signer = await this.deps.signer(tenantId);
      const { anchor, created } = await this.deps.anchors.signCurrent(
        tenantId,
        signer,
        this.deps.clock().toISOString(),
      );
      this.failing.delete(tenantId);
      this.deps.log.info(
        { tenant_id: tenantId, tree_size: anchor.head.tree_size, key_id: anchor.keyId },
        'anchored the journal',
      );
      // After the head is stored and the write lock released: network waits never hold decisions.
      if (created) await this.deps.attest?.(anchor);
      return anchor;
    } catch (err) {
      const message = (err as Error).message;
      if (this.failing.get(tenantId) !== message) {
        this.failing.set(tenantId, message);
        this.deps.log.error({ tenant_id: tenantId, err }, 'anchor schedule: cannot sign the journal head');
      }
      return undefined;
    }
  }
}
