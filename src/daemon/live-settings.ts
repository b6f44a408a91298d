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

/** The flags (and configuration keys) a reload applies. */
const LIVE_FLAGS = new Set([
  'anchor-interval',
  'anchor-entries',
  'max-open-approvals-per-actor',
  'max-open-approvals-per-task',
]);
/** Not settings of the running daemon: how the command was asked to run. */
const NOT_SETTINGS = new Set(['config', 'print-config']);

export interface LiveFlags {
  'anchor-interval': number;
  'anchor-entries': number;
  'max-open-approvals-per-actor': number;
  'max-open-approvals-per-task': number;
}

/** The live settings as the command's effective flags give them. */
export function liveSettingsOf(flags: LiveFlags): LiveSettings {
  return {
    anchorIntervalMs: flags['anchor-interval'],
    anchorEntries: flags['anchor-entries'],
    openApprovals: {
      perActor: flags['max-open-approvals-per-actor'],
      perTask: flags['max-open-approvals-per-task'],
    },
  };
}

/**
 * The settings that differ between the start and now but only take effect at the next start
 * (listen address, store, TLS file paths, limits, witnesses ...), by their flag names.
 */
export function restartKeys(atStart: object, now: object): string[] {
  const before = atStart as Record<string, unknown>;
  const after = now as Record<string, unknown>;
  return [...new Set([...Object.keys(before), ...Object.keys(after)])]
    .filter((k) => !LIVE_FLAGS.has(k) && !NOT_SETTINGS.has(k))
    .filter((k) => JSON.stringify(before[k]) !== JSON.stringify(after[k]))
    .sort();
}
