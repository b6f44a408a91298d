import type { Actor } from '../../core/actor.js';
import type { AccessRequestRecord, ManagerCardRecord } from '../access-ports.js';
import {
  cardRecord,
  deciderIds,
  requestRecord,
  requestRow,
  type CardRow,
  type RawRequestRow,
  type RequestRow,
} from '../rows/access.js';
import { toActor, type ActorRow } from '../rows/actor.js';
import type { PgTx } from './database.js';

/**
 * How access requests and their cards are read, shared by the request and card stores,
 * on the caller's connection (a transaction's, when it writes): one request row, its
 * cards, and who decides it now.
 */
export class AccessReads {
  constructor(private readonly q: Pick<PgTx, 'query'>) {}

  async request(tenantId: string, id: string): Promise<RequestRow | undefined> {
    const [r] = await this.q.query<RawRequestRow>(
      `SELECT r.*, e.expires_at AS entitlement_expires_at, c.owners, c.tier
       FROM access_requests r
       LEFT JOIN entitlements e ON e.tenant_id = r.tenant_id AND e.id = r.entitlement_id
       LEFT JOIN capabilities c ON c.tenant_id = r.tenant_id AND c.name = r.capability
       WHERE r.tenant_id = $1 AND r.id = $2`,
      [tenantId, id],
    );
    return r && requestRow(r);
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
    return deciderIds(r, await this.actor(r.tenant_id, r.actor_id));
  }

  async record(r: RequestRow, now: Date): Promise<AccessRequestRecord> {
    return requestRecord(r, await this.cardsOf(r), now);
  }

  cardRecord(c: CardRow, r: RequestRow, now: Date): ManagerCardRecord {
    return cardRecord(c, r, now);
  }
}
