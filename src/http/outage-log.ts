import type { FastifyBaseLogger } from 'fastify';
import type { SvcError } from '../core/errors.js';

/** How long the same outage is logged once, its repeats counted instead. */
export const OUTAGE_LOG_WINDOW_MS = 10_000;

/**
 * A 503 is mostly a condition outside the process (the store unreachable or busy), and
 * under load one line with a stack per request floods the log (thousands a second in an
 * outage). It is logged once per reason and window, with its cause (and stack, for the rare
 * 503 that wraps a failure nobody expected); the repeats are counted, and the next line
 * says how many were left out.
 */
export class OutageLog {
  private readonly seen = new Map<string, { until: number; left: number }>();

  constructor(private readonly windowMs = OUTAGE_LOG_WINDOW_MS) {}

  report(log: FastifyBaseLogger, err: SvcError, now = Date.now()): void {
    const held = this.seen.get(err.reason);
    if (held && now < held.until) {
      held.left++;
      return;
    }
    this.seen.set(err.reason, { until: now + this.windowMs, left: 0 });
    log.error({ err, ...(held && held.left > 0 ? { repeats_not_logged: held.left } : {}) }, err.reason);
  }
}
