import type { Actor } from '../../core/actor.js';
import type { AccessRequestRecord, ManagerCardRecord } from '../access-ports.js';
import { cardRecord, deciderIds, requestRecord, type CardRow, type RequestRow } from '../rows/access.js';
import { toActor, type ActorRow } from '../rows/actor.js';
import type { Db } from './database.js';

/**
 * How access requests and their cards are read, shared by the request and card stores:
 * one request row (with its entitlement's expiry and the capability's owners as registered
 * now), its cards, and who decides it now.
 */
export class AccessReads {
  private readonly q;

  constructor(db: Db) {
    this.q = {
      request: db.prepare<[string, string], RequestRow>(
        `SELECT r.*, e.expires_at AS entitlement_expires_at, c.owners, c.tier
         FROM access_requests r
         LEFT JOIN entitlements e ON e.tenant_id = r.tenant_id AND e.id = r.entitlement_id
         LEFT JOIN capabilities c ON c.tenant_id = r.tenant_id AND c.name = r.capability
         WHERE r.tenant_id = ? AND r.id = ?`,
      ),
      cardsOf: db.prepare<[string, string], CardRow>(
        `SELECT id, request_id, recipient_id, role, created_at FROM manager_cards
         WHERE tenant_id = ? AND request_id = ? ORDER BY role = 'owner', recipient_id`,
      ),
      actor: db.prepare<[string, string], ActorRow>('SELECT * FROM actors WHERE tenant_id = ? AND id = ?'),
    };
  }

  request(tenantId: string, id: string): RequestRow | undefined {
    return this.q.request.get(tenantId, id);
  }

  cardsOf(r: RequestRow): CardRow[] {
    return this.q.cardsOf.all(r.tenant_id, r.id);
  }

  actor(tenantId: string, id: string): Actor | undefined {
    const row = this.q.actor.get(tenantId, id);
    return row && toActor(row);
  }

  /** The request's deciders as registration stands now: the requester's manager and the capability's owners. */
  deciders(r: RequestRow): string[] {
    return deciderIds(r, this.actor(r.tenant_id, r.actor_id));
  }

  record(r: RequestRow, now: Date): AccessRequestRecord {
    return requestRecord(r, this.cardsOf(r), now);
  }

  cardRecord(c: CardRow, r: RequestRow, now: Date): ManagerCardRecord {
    return cardRecord(c, r, now);
  }
}
