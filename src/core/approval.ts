import { hasRole, type Actor } from './actor.js';
import { SvcError } from './errors.js';

/** What is stored; `expired` is never stored, it is read off the clock. */
export type StoredApprovalStatus = 'pending' | 'approved' | 'denied' | 'consumed';
export type ApprovalStatus = StoredApprovalStatus | 'expired';
export type ApprovalDecision = 'approve' | 'deny';
/** Where a decision came from; every channel decides the same approval object. */
export type ApprovalChannel = 'api' | 'cli' | 'console' | 'chat' | 'collab';

export interface ApprovalFacts {
  id: string;
  status: StoredApprovalStatus;
  requesterId: string;
  capability: string;
  decidedBy: string | null;
  decidedAt: string | null;
  expiresAt: string;
}

/** An undecided or unused approval stops counting at its expiry. */
export function effectiveStatus(a: Pick<ApprovalFacts, 'status' | 'expiresAt'>, now: Date): ApprovalStatus {
  const open = a.status === 'pending' || a.status === 'approved';
  return open && Date.parse(a.expiresAt) <= now.getTime() ? 'expired' : a.status;
}

/** Humans who see every approval of the tenant: approvers, and those who run the deployment. */
export function readsAllApprovals(actor: Actor): boolean {
  return hasRole(actor, 'approver') || hasRole(actor, 'operator') || hasRole(actor, 'administrator');
}

export function readsApproval(actor: Actor, a: ApprovalFacts, namedApprovers: readonly string[]): boolean {
  return readsAllApprovals(actor) || a.requesterId === actor.id || namedApprovers.includes(actor.id);
}

const REMEDY = 'ask a registered human with the approver role, or one the capability names as approver';

/**
 * Why `decider` may not decide `a` now, or undefined when it may (semantics.md, Approvals):
 * only registered humans with the approver role or named by the capability; never the
 * requesting actor; the first decision wins; an expired approval takes no decision. One
 * function for every channel, so the API, the CLI and the chat callbacks cannot disagree.
 */
export function decisionRefusal(
  a: ApprovalFacts,
  decider: Actor,
  namedApprovers: readonly string[],
  now: Date,
): SvcError | undefined {
  if (!readsApproval(decider, a, namedApprovers)) {
    return new SvcError('not_found', 'no such approval');
  }
  if (decider.id === a.requesterId) {
    return new SvcError('forbidden', 'the requesting actor never decides its own approval', {
      code: 'self_approval',
      remedy: REMEDY,
    });
  }
  if (decider.kind !== 'human' || !(hasRole(decider, 'approver') || namedApprovers.includes(decider.id))) {
    return new SvcError(
      'forbidden',
      `${decider.id} may not decide approvals for ${a.capability}: only registered humans with the approver role or named by the capability`,
      { code: 'not_an_approver', remedy: REMEDY },
    );
  }
  const status = effectiveStatus(a, now);
  if (status === 'expired') {
    return new SvcError(
      'conflict',
      `approval ${a.id} expired at ${a.expiresAt} and can no longer be decided`,
      {
        code: 'approval_expired',
        remedy: 'the requester sends the request again with a new effect_key_step to open a new approval',
      },
    );
  }
  if (status !== 'pending') {
    const by = a.decidedBy !== null ? ` by ${a.decidedBy} at ${a.decidedAt ?? '?'}` : '';
    return new SvcError('conflict', `approval ${a.id} is already ${status}${by}; the first decision wins`, {
      code: 'already_decided',
    });
  }
  return undefined;
}
