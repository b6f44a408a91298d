/**
 * When a failed delivery is tried again (semantics.md "Events and notifications"): about
 * 5 s, 30 s, 2 min, 10 min, 1 h, 6 h and 24 h after the previous attempt, then a dead letter.
 * Eight attempts in all over about 31 hours.
 *
 * Jitter is ±20 % around each step ("equal" jitter, not "full" jitter): full jitter would
 * turn "about 24 h" into anything from zero to a day, and the spec promises the steps; ±20 %
 * is enough to spread a burst of failures (a receiver that was down for everyone) so the
 * retries do not arrive at the receiver in one wave.
 */
export const RETRY_STEPS_MS: readonly number[] = [
  5_000, 30_000, 120_000, 600_000, 3_600_000, 21_600_000, 86_400_000,
];

/** The jitter's half-width: a step of d waits between 0.8 d and 1.2 d. */
export const RETRY_JITTER = 0.2;

/** Attempts before a dead letter: the first and one per step. */
export const MAX_ATTEMPTS = RETRY_STEPS_MS.length + 1;

/** The largest speed-up a deployment may ask for (tests and drills compress the day into seconds). */
export const MAX_RETRY_SPEEDUP = 1_000_000;

/**
 * The wait before the next attempt, after `attempts` attempts failed (1 after the first), or
 * `null` when that was the last and the delivery is dead. `random` returns [0, 1) and is
 * passed in so the schedule stays pure; `speedup` (1 in production) divides every wait.
 */
export function retryDelayMs(attempts: number, random: () => number, speedup = 1): number | null {
  if (!Number.isInteger(attempts) || attempts < 1) {
    throw new RangeError(`attempts must be a positive integer, got ${attempts}`);
  }
  if (!Number.isInteger(speedup) || speedup < 1 || speedup > MAX_RETRY_SPEEDUP) {
    throw new RangeError(`speedup must be an integer from 1 to ${MAX_RETRY_SPEEDUP}, got ${speedup}`);
  }
  const step = RETRY_STEPS_MS[attempts - 1];
  if (step === undefined) return null;
  const r = random();
  // A source outside [0, 1) would stretch or invert the window: clamp rather than trust it.
  const u = Number.isFinite(r) ? Math.min(Math.max(r, 0), 1) : 0.5;
  return Math.round((step * (1 - RETRY_JITTER + 2 * RETRY_JITTER * u)) / speedup);
}
