/** How records read to an operator: kinds and outcomes in words, and which of them are trouble. */

export const KINDS: readonly (readonly [string, string])[] = [
  ['decision', 'Decision'],
  ['approval', 'Approval'],
  ['access', 'Access'],
  ['execution', 'Execution'],
  ['observation', 'Observed effect'],
  ['grant_effect', 'Grant effect'],
  ['redaction', 'Redaction'],
  ['integration_op', 'Integration operation'],
];

export const kindLabel = (kind: string): string => KINDS.find(([k]) => k === kind)?.[1] ?? words(kind);

/** Outcomes the journal holds, by kind (decisions, approvals, access steps, executions, effects). */
export const OUTCOMES = [
  'allowed',
  'refused',
  'deferred',
  'approved',
  'denied',
  'requested',
  'revoked',
  'entitlement_revoked',
  'succeeded',
  'failed',
  'unknown',
  'redacted',
] as const;

/** `entitlement_revoked` reads "entitlement revoked". */
export const words = (s: string): string => s.replaceAll('_', ' ');

/**
 * The pill a state wears. Only a refusal, a denial or a failure is an error; an outcome
 * nobody knows (a brokered call whose answer was lost) needs reconciling; routine steps
 * (requested, deferred, pending, revoked, redacted) are information, not trouble.
 */
export function tone(outcome: string): 'ok' | 'warn' | 'bad' | 'info' {
  if (outcome === 'allowed' || outcome === 'approved' || outcome === 'succeeded') return 'ok';
  if (outcome === 'refused' || outcome === 'denied' || outcome === 'failed') return 'bad';
  if (outcome === 'unknown') return 'warn';
  return 'info';
}

/** A duration in words, coarse: `42 s`, `7 min`, `3 h 12 min`, `2 d 4 h`. */
export function age(seconds: number): string {
  if (seconds < 60) return `${seconds} s`;
  const min = Math.floor(seconds / 60);
  if (min < 60) return `${min} min`;
  const h = Math.floor(min / 60);
  if (h < 48) return `${h} h ${min % 60} min`;
  return `${Math.floor(h / 24)} d ${h % 24} h`;
}
