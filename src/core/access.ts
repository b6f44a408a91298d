import { hasRole, type Actor } from './actor.js';
import { invalidField, SvcError } from './errors.js';
import { readsWholeTenant } from './readers.js';

/**
 * Access requests, manager cards and entitlements (semantics.md, Access): an actor asks
 * for a capability from its catalogue; cards go to its accountable manager and the
 * capability's owners; the first of them to decide wins; approval creates an entitlement
 * that expires. These rules are shared by the store (inside its transactions) and the
 * routes, so every path answers the same.
 */

/** What is stored; `expired` is read off the clock (an approved request whose entitlement ran out). */
export type StoredAccessStatus = 'pending' | 'approved' | 'denied' | 'revoked';
export type AccessStatus = StoredAccessStatus | 'expired';
export const ACCESS_STATUSES = ['pending', 'approved', 'denied', 'revoked', 'expired'] as const;

export type CardRole = 'manager' | 'owner';
/** A card is `closed` when another recipient decided, or the request was withdrawn before anyone did. */
export type CardStatus = 'pending' | 'approved' | 'denied' | 'closed';
export const CARD_STATUSES = ['pending', 'approved', 'denied', 'closed'] as const;

export type EntitlementStatus = 'active' | 'expired' | 'revoked';
export const ENTITLEMENT_STATUSES = ['active', 'expired', 'revoked'] as const;

export type AccessDecision = 'approve' | 'deny';

/** Bounds of a requested or granted duration: a minute to 90 days. */
export const MIN_ACCESS_SECONDS = 60;
export const MAX_ACCESS_SECONDS = 90 * 86_400;

export interface AccessFacts {
  id: string;
  status: StoredAccessStatus;
  requesterId: string;
  capability: string;
  durationSeconds: number;
  decision: AccessDecision | null;
  decidedBy: string | null;
  /** of the entitlement an approval created; null otherwise */
  entitlementExpiresAt: string | null;
}

export interface CardRecipient {
  recipientId: string;
  role: CardRole;
}

export function accessStatus(a: AccessFacts, now: Date): AccessStatus {
  if (
    a.status === 'approved' &&
    a.entitlementExpiresAt !== null &&
    Date.parse(a.entitlementExpiresAt) <= now.getTime()
  ) {
    return 'expired';
  }
  return a.status;
}

export function cardStatus(a: AccessFacts, recipientId: string): CardStatus {
  if (a.decidedBy === recipientId && a.decision !== null)
    return a.decision === 'approve' ? 'approved' : 'denied';
  return a.status === 'pending' ? 'pending' : 'closed';
}

export function checkAccessSeconds(field: string, value: number): number {
  if (!Number.isInteger(value) || value < MIN_ACCESS_SECONDS || value > MAX_ACCESS_SECONDS) {
    throw invalidField(
      field,
      `a whole number of seconds from ${MIN_ACCESS_SECONDS} to ${MAX_ACCESS_SECONDS} (90 days)`,
    );
  }
  return value;
}

/** An approval grants at most what was asked for; without a duration, exactly that. */
export function grantedSeconds(requested: number, asked: number | undefined): number {
  if (asked === undefined) return requested;
  checkAccessSeconds('duration_seconds', asked);
  if (asked > requested) {
    throw new SvcError(
      'invalid_request',
      `duration_seconds: expected at most the requested ${requested} seconds`,
      { field: 'duration_seconds', remedy: `approve for ${requested} seconds or less, or deny` },
    );
  }
  return asked;
}

/**
 * Who decides a request: the requester's accountable manager, then the capability's named
 * owners; never the requester itself. Registration guarantees managers and owners are humans.
 */
export function cardRecipients(requester: Actor, owners: readonly string[]): CardRecipient[] {
  const out: CardRecipient[] = [];
  if (requester.managerId !== null && requester.managerId !== requester.id) {
    out.push({ recipientId: requester.managerId, role: 'manager' });
  }
  for (const id of [...new Set(owners)].sort()) {
    if (id !== requester.id && !out.some((r) => r.recipientId === id))
      out.push({ recipientId: id, role: 'owner' });
  }
  return out;
}

/** Those who run or audit the deployment read every request and entitlement of the tenant. */
export const readsAllAccess = readsWholeTenant;

/** Administrators and operators may withdraw any request or entitlement of the tenant. */
function revokesAll(actor: Actor): boolean {
  return hasRole(actor, 'operator') || hasRole(actor, 'administrator');
}

export function readsAccessRequest(viewer: Actor, a: AccessFacts, deciders: readonly string[]): boolean {
  return readsAllAccess(viewer) || a.requesterId === viewer.id || deciders.includes(viewer.id);
}

const DECIDER_REMEDY = "the requester's accountable manager or an owner of the capability decides";

/**
 * Why `decider` may not decide the card addressed to `recipientId` now, or undefined.
 * `deciders` are the request's recipients as registration stands now: an owner removed
 * from the capability since the card was issued no longer decides.
 */
export function cardDecisionRefusal(
  a: AccessFacts,
  card: { id: string; recipientId: string },
  decider: Actor,
  deciders: readonly string[],
  now: Date,
): SvcError | undefined {
  if (decider.kind !== 'human') {
    return new SvcError('forbidden', 'only a registered human manager or owner decides access requests', {
      code: 'not_a_decider',
      remedy: DECIDER_REMEDY,
    });
  }
  if (card.recipientId !== decider.id) return new SvcError('not_found', 'no such manager card');
  if (decider.id === a.requesterId) {
    return new SvcError('forbidden', 'the requesting actor never decides its own access request', {
      code: 'self_approval',
      remedy: DECIDER_REMEDY,
    });
  }
  if (!deciders.includes(decider.id)) {
    return new SvcError(
      'forbidden',
      `${decider.id} is no longer the manager of ${a.requesterId} or an owner of ${a.capability}`,
      { code: 'not_a_decider', remedy: DECIDER_REMEDY },
    );
  }
  const status = accessStatus(a, now);
  if (status === 'revoked') {
    return new SvcError('conflict', `access request ${a.id} was withdrawn`, { code: 'request_revoked' });
  }
  if (status !== 'pending') {
    const by = a.decidedBy !== null ? ` by ${a.decidedBy}` : '';
    return new SvcError(
      'conflict',
      `access request ${a.id} is already ${status}${by}; the first decision wins`,
      {
        code: 'already_decided',
      },
    );
  }
  return undefined;
}

/** Why `viewer` may not revoke the request now, or undefined. */
export function accessRevokeRefusal(
  a: AccessFacts,
  viewer: Actor,
  deciders: readonly string[],
  now: Date,
): SvcError | undefined {
  if (!readsAccessRequest(viewer, a, deciders)) return new SvcError('not_found', 'no such access request');
  if (viewer.id !== a.requesterId && !deciders.includes(viewer.id) && !revokesAll(viewer)) {
    return new SvcError(
      'forbidden',
      'only the requester, its manager, an owner of the capability, an operator or an administrator revokes a request',
      { code: 'not_a_revoker' },
    );
  }
  const status = accessStatus(a, now);
  if (status !== 'pending' && status !== 'approved') {
    return new SvcError('conflict', `access request ${a.id} is ${status}: nothing to revoke`, {
      code: 'not_revocable',
    });
  }
  return undefined;
}

export interface EntitlementFacts {
  id: string;
  holderId: string;
  capability: string;
  expiresAt: string;
  revokedAt: string | null;
}

export function entitlementStatus(
  e: Pick<EntitlementFacts, 'expiresAt' | 'revokedAt'>,
  now: Date,
): EntitlementStatus {
  if (e.revokedAt !== null) return 'revoked';
  return Date.parse(e.expiresAt) <= now.getTime() ? 'expired' : 'active';
}

/**
 * An entitlement's readers: its holder, the holder's manager, the capability's owners,
 * and the tenant-wide readers. `overseers` are that manager and those owners.
 */
export function readsEntitlement(viewer: Actor, e: EntitlementFacts, overseers: readonly string[]): boolean {
  return readsAllAccess(viewer) || e.holderId === viewer.id || overseers.includes(viewer.id);
}

export function entitlementRevokeRefusal(
  e: EntitlementFacts,
  viewer: Actor,
  overseers: readonly string[],
  now: Date,
): SvcError | undefined {
  if (!readsEntitlement(viewer, e, overseers)) return new SvcError('not_found', 'no such entitlement');
  if (viewer.id !== e.holderId && !overseers.includes(viewer.id) && !revokesAll(viewer)) {
    return new SvcError(
      'forbidden',
      'only the holder, its manager, an owner of the capability, an operator or an administrator revokes an entitlement',
      { code: 'not_a_revoker' },
    );
  }
  const status = entitlementStatus(e, now);
  if (status !== 'active') {
    return new SvcError('conflict', `entitlement ${e.id} is ${status}: nothing to revoke`, {
      code: 'not_revocable',
    });
  }
  return undefined;
}
