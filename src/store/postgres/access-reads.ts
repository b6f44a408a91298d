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
import type { AccessRequestRecord, ManagerCardRecord } from '../access-ports.js';
import type { PgTx } from './database.js';
import { toActor, type ActorRow } from './identity.js';

/** An access request as read, with its integers already numbers (BIGINT arrives as text). */
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

const num = (v: string | number | null): number | null => (v === null ? null : Number(v));

/**
 * How access requests and their cards are read, shared by the request and card stores,
 * on the caller's connection (a transaction's, when it writes): one request row, its
 * cards, and who decides it now.
 */
export class AccessReads {
  constructor(private readonly q: Pick<PgTx, 'query'>) {}

  async request(tenantId: string, id: string): Promise<RequestRow | undefined> {
    const [r] = await this.q.query<RequestRow>(
      `SELECT r.*, e.expires_at AS entitlement_expires_at, c.owners, c.tier
       FROM access_requests r
       LEFT JOIN entitlements e ON e.tenant_id = r.tenant_id AND e.id = r.entitlement_id
       LEFT JOIN capabilities c ON c.tenant_id = r.tenant_id AND c.name = r.capability
       WHERE r.tenant_id = $1 AND r.id = $2`,
      [tenantId, id],
    );
    return (
      r && {
        ...r,
        duration_seconds: Number(r.duration_seconds),
        granted_seconds: num(r.granted_seconds),
        tier: num(r.tier),
      }
    );
  }

  cardsOf(r: RequestRow): Promise<CardRow[]> {
    return this.q.query<CardRow>(
      `SELECT id, request_id, recipient_id, role, created_at FROM manager_cards
       WHERE tenant_id = $1 AND request_id = $2 ORDER BY role = 'owner', recipient_id`,
      [r.tenant_id, r.id],
    );
  }

  async actor(tenantId: string, id: string): Promise<Actor | undefined> {
    const [row] = await this.q.query<ActorRow>('SELECT * FROM actors WHERE tenant_id = $1 AND id = $2', [
      tenantId,
      id,
    ]);
    return row && toActor(row);
  }

  /** The request's deciders as registration stands now: the requester's manager and the capability's owners. */
  async deciders(r: RequestRow): Promise<string[]> {
    const requester = await this.actor(r.tenant_id, r.actor_id);
    const owners = r.owners === null ? [] : (JSON.parse(r.owners) as string[]);
    return requester ? cardRecipients(requester, owners).map((c) => c.recipientId) : [];
  }

  async record(r: RequestRow, now: Date): Promise<AccessRequestRecord> {
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
      cards: (await this.cardsOf(r)).map((c) => ({
        cardId: c.id,
        recipientId: c.recipient_id,
        role: c.role,
        status: cardStatus(f, c.recipient_id),
      })),
    };
  }

  cardRecord(c: CardRow, r: RequestRow, now: Date): ManagerCardRecord {
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
}
