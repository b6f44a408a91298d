import { invalidField } from '../core/errors.js';
import { openApprovalLimits, type OpenApprovalLimits } from '../core/decision/open-approvals.js';
import { ANCHOR_INTERVAL_BOUNDS } from './anchor-schedule.js';

/**
 * The settings a running daemon takes on a reload, without a restart. Everything else
 * (listen address, store, TLS file paths, limits, witnesses) is fixed at start.
 */
export interface LiveSettings {
  /** `--anchor-interval`, in milliseconds */
  anchorIntervalMs?: number;
  /** `--anchor-entries` */
  anchorEntries?: number;
  /** `--max-open-approvals-per-actor` and `--max-open-approvals-per-task` */
  openApprovals?: OpenApprovalLimits;
}

/** The keys a reload applies, by their flag names, for the log. */
export const LIVE_KEYS = {
  anchorIntervalMs: 'anchor-interval',
  anchorEntries: 'anchor-entries',
  openApprovals: 'max-open-approvals-per-actor/per-task',
} as const;

/** Every key checked before any is applied: a bad one refuses the whole reload, naming its flag. */
export function checkLiveSettings(s: LiveSettings): LiveSettings {
  const { minMs, maxMs } = ANCHOR_INTERVAL_BOUNDS;
  const ms = s.anchorIntervalMs;
  if (ms !== undefined && (!Number.isSafeInteger(ms) || ms < minMs || ms > maxMs)) {
    throw invalidField('anchor-interval', 'a duration from 1s to 1d');
  }
  const n = s.anchorEntries;
  if (n !== undefined && (!Number.isSafeInteger(n) || n < 1)) {
    throw invalidField('anchor-entries', 'a whole number of at least 1');
  }
  const open = s.openApprovals;
  return {
    ...(ms !== undefined ? { anchorIntervalMs: ms } : {}),
    ...(n !== undefined ? { anchorEntries: n } : {}),
    ...(open !== undefined ? { openApprovals: openApprovalLimits(open.perActor, open.perTask) } : {}),
  };
}
