import type { OutboundPolicy } from './outbound-policy.js';

/**
 * One delivery attempt of a chat or collab destination may make several calls (a token, a
 * post per approver, an update per message, a second try after a 401). All of them share
 * the policy's one time-out: each call gets what is left of it, and none starts once it is
 * spent. The loop's lease (twice the time-out and a second) then always outlives the
 * attempt, so another daemon never claims a delivery whose posts are still going out.
 */
export type AttemptBudget = () => OutboundPolicy | undefined;

export function attemptBudget(policy: OutboundPolicy, started = Date.now()): AttemptBudget {
  return () => {
    const left = policy.timeoutMs - (Date.now() - started);
    return left > 0 ? { ...policy, timeoutMs: left } : undefined;
  };
}

/** The outcome of a call the spent budget did not let start. */
export const SPENT = { kind: 'retry', status: null, error: 'timeout' } as const;
