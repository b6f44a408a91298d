/**
 * A destination's sealed secret value during a rotation (semantics.md: the secrets,
 * space-separated, newest first). The newest stands alone; each older one carries the end of
 * its overlap, `whsec_…@2026-11-28T03:00:00.000Z`, inside the sealed value, so the window is
 * authenticated with the secret itself and checked where the secrets are opened: a
 * receiver that still holds the old secret verifies until then, and only the new one after.
 */

/** How long the secret a rotation replaces still signs, besides the new one. */
export const ROTATION_OVERLAP_MS = 24 * 3_600_000;
/** Older secrets kept signing at once (several rotations within a day); the oldest go first. */
export const MAX_RETIRING = 3;

export interface SealedSecret {
  secret: string;
  /** when it stops signing; null for the current secret */
  until: Date | null;
}

const RETIRING = /^(\S+)@(\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(?:\.\d{1,3})?Z)$/;

export function parseSealedSecrets(value: string): SealedSecret[] {
  return value
    .split(/\s+/)
    .filter((s) => s !== '')
    .map((part) => {
      const m = RETIRING.exec(part);
      const until = m ? new Date(m[2]!) : null;
      return m && until && !Number.isNaN(until.getTime())
        ? { secret: m[1]!, until }
        : { secret: part, until: null };
    });
}

/** The secrets that sign at `now`, newest first: a retiring one only before its end. */
export function signingSecrets(value: string, now: Date): string[] {
  return parseSealedSecrets(value)
    .filter((s) => s.until === null || s.until.getTime() > now.getTime())
    .map((s) => s.secret);
}

/**
 * The value after a rotation at `now`: `next` alone in front, the secrets signing until now
 * behind it, each ending at most `overlapMs` from now (a retiring one keeps its own earlier
 * end), at most `MAX_RETIRING` of them. Secrets whose window has passed are dropped.
 */
export function rotatedValue(
  current: string | undefined,
  next: string,
  now: Date,
  overlapMs = ROTATION_OVERLAP_MS,
): { value: string; previousUntil: Date | null } {
  const end = new Date(now.getTime() + overlapMs);
  const retiring = parseSealedSecrets(current ?? '')
    .filter((s) => s.until === null || s.until.getTime() > now.getTime())
    .map((s) => ({ secret: s.secret, until: s.until === null || s.until > end ? end : s.until }))
    .filter((s) => s.secret !== next)
    .slice(0, MAX_RETIRING);
  return {
    value: [next, ...retiring.map((s) => `${s.secret}@${s.until.toISOString()}`)].join(' '),
    previousUntil: retiring.length > 0 ? end : null,
  };
}
