import {
  accessStatus,
  cardRecipients,
  cardStatus,
  type AccessDecision,
  type AccessFacts,
  type CardRole,
  type StoredAccessStatus,
} from '../../core/access.js';
import type { Actor } from '../../core/actor.js';
import type { CardToDecide } from '../../core/card-decision.js';
import type { AccessRequestRecord, ManagerCardRecord } from '../access-ports.js';
import { int, intOrNull, type DbInt } from './numbers.js';

/** An access request as read, with its integers already numbers. */
export interface RequestRow {
  tenant_id: string;
  id: string;
  actor_id: string;
  capability: string;
  reason: string;
  duration_seconds: number;
  status: StoredAccessStatus;
  decision: AccessDecision | null;
  decided_by: string | null;
  decided_at: string | null;
  granted_seconds: number | null;
  note: string | null;
  entitlement_id: string | null;
  revoked_by: string | null;
  revoked_at: string | null;
  created_at: string;
  entitlement_expires_at: string | null;
  /** the capability's owners as registered now (JSON array), null if it is gone */
  owners: string | null;
  tier: number | null;
}

/** The request row as a driver returns it (PostgreSQL gives BIGINT as text). */
export type RawRequestRow = Omit<RequestRow, 'duration_seconds' | 'granted_seconds' | 'tier'> & {
  duration_seconds: DbInt;
  granted_seconds: DbInt | null;
  tier: DbInt | null;
};

export const requestRow = (r: RawRequestRow): RequestRow => ({
  ...r,
  duration_seconds: int(r.duration_seconds),
  granted_seconds: intOrNull(r.granted_seconds),
  tier: intOrNull(r.tier),
});

export interface CardRow {
  id: string;
  request_id: string;
  recipient_id: string;
  role: CardRole;
  created_at: string;
}

export const facts = (r: RequestRow): AccessFacts => ({
  id: r.id,
  status: r.status,
  requesterId: r.actor_id,
  capability: r.capability,
  durationSeconds: r.duration_seconds,
  decision: r.decision,
  decidedBy: r.decided_by,
  entitlementExpiresAt: r.entitlement_expires_at,
});

/** The request's deciders as registration stands now: the requester's manager and the capability's owners. */
export function deciderIds(r: RequestRow, requester: Actor | undefined): string[] {
  const owners = r.owners === null ? [] : (JSON.parse(r.owners) as string[]);
  return requester ? cardRecipients(requester, owners).map((c) => c.recipientId) : [];
}

/** The card as core/card-decision.ts judges it. */
export const cardToDecide = (c: CardRow, r: RequestRow, deciders: string[]): CardToDecide => ({
  card: { id: c.id, recipientId: c.recipient_id },
  request: facts(r),
  tier: r.tier,
  deciders,
});

export function requestRecord(r: RequestRow, cards: CardRow[], now: Date): AccessRequestRecord {
  const f = facts(r);
  return {
    id: r.id,
    tenantId: r.tenant_id,
    actorId: r.actor_id,
    capability: r.capability,
    reason: r.reason,
    durationSeconds: r.duration_seconds,
    status: accessStatus(f, now),
    decision: r.decision,
    decidedBy: r.decided_by,
    decidedAt: r.decided_at,
    grantedSeconds: r.granted_seconds,
    note: r.note,
    entitlementId: r.entitlement_id,
    entitlementExpiresAt: r.entitlement_expires_at,
    revokedBy: r.revoked_by,
    revokedAt: r.revoked_at,
    createdAt: r.created_at,
    cards: cards.map((c) => ({
      cardId: c.id,
      recipientId: c.recipient_id,
      role: c.role,
      status: cardStatus(f, c.recipient_id),
    })),
  };
}

export function cardRecord(c: CardRow, r: RequestRow, now: Date): ManagerCardRecord {
  const f = facts(r);
  return {
    id: c.id,
    requestId: r.id,
    recipientId: c.recipient_id,
    role: c.role,
    status: cardStatus(f, c.recipient_id),
    requestStatus: accessStatus(f, now),
    requesterId: r.actor_id,
    capability: r.capability,
    reason: r.reason,
    durationSeconds: r.duration_seconds,
    decidedBy: r.decided_by,
    decidedAt: r.decided_at,
    createdAt: c.created_at,
  };
}
