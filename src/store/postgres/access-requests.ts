import { accessRevokeRefusal, cardRecipients, readsAccessRequest } from '../../core/access.js';
import type { Actor } from '../../core/actor.js';
import { SvcError } from '../../core/errors.js';
import { newId } from '../../core/ids.js';
import type {
  AccessReceipt,
  AccessRequestRecord,
  AccessRequestStore,
  NewAccessRequest,
} from '../access-ports.js';
import { appendAccessRecord } from './access-journal.js';
import { facts } from '../rows/access.js';
import {
  checkDeciders,
  checkNotHeldOrPending,
  checkRequestable,
  requestedEntry,
  requestRevokedEntry,
  type RequestableRow,
} from '../rows/access-request.js';
import { AccessReads } from './access-reads.js';
import { pgStoreError, type PgDb, type PgTx } from './database.js';
import { lockTenant } from './locks.js';

// The same test the decision applies at step 6: a standing permission, or a live entitlement.
const HOLDS = `SELECT 1 FROM permissions WHERE tenant_id = $1 AND actor_id = $2 AND capability = $3
  UNION ALL SELECT 1 FROM entitlements WHERE tenant_id = $1 AND actor_id = $2 AND capability = $3
    AND revoked_at IS NULL AND expires_at > $4`;

export class PgAccessRequests implements AccessRequestStore {
  constructor(private readonly db: PgDb) {}

  /** One transaction under the tenant's lock, taken before anything is read. */
  private async run<T>(
    tenantId: string,
    what: string,
    fn: (tx: PgTx, reads: AccessReads) => Promise<T>,
  ): Promise<T> {
    try {
      return await this.db.tx(async (tx) => {
        await lockTenant(tx, tenantId);
        return fn(tx, new AccessReads(tx));
      });
    } catch (err) {
      throw pgStoreError(err, what);
    }
  }

  async request(input: NewAccessRequest): Promise<{ request: AccessRequestRecord; receipt: AccessReceipt }> {
    const { tenantId, actorId, capability } = input;
    const at = input.at.toISOString();
    return this.run(tenantId, `access request for ${capability}`, async (tx, reads) => {
      const requester = await reads.actor(tenantId, actorId);
      if (!requester) throw new SvcError('forbidden', `${actorId} is not a registered actor of this tenant`);
      const cap = checkRequestable(
        capability,
        (
          await tx.query<RequestableRow>(
            'SELECT requestable, owners, tier FROM capabilities WHERE tenant_id = $1 AND name = $2',
            [tenantId, capability],
          )
        )[0],
      );
      const held = (await tx.query(HOLDS, [tenantId, actorId, capability, at])).length > 0;
      const [open] = await tx.query<{ id: string }>(
        `SELECT id FROM access_requests WHERE tenant_id = $1 AND actor_id = $2 AND capability = $3 AND status = 'pending'`,
        [tenantId, actorId, capability],
      );
      checkNotHeldOrPending(capability, held, open);
      const recipients = [];
      for (const r of cardRecipients(requester, JSON.parse(cap.owners) as string[])) {
        if ((await reads.actor(tenantId, r.recipientId))?.kind === 'human') recipients.push(r);
      }
      checkDeciders(capability, recipients);
      const id = newId('acr');
      await tx.query(
        `INSERT INTO access_requests (tenant_id, id, actor_id, capability, reason, duration_seconds, status, created_at)
         VALUES ($1, $2, $3, $4, $5, $6, 'pending', $7)`,
        [tenantId, id, actorId, capability, input.reason, input.durationSeconds, at],
      );
      for (const r of recipients) {
        await tx.query(
          `INSERT INTO manager_cards (tenant_id, id, request_id, recipient_id, role, created_at)
           VALUES ($1, $2, $3, $4, $5, $6)`,
          [tenantId, newId('card'), id, r.recipientId, r.role, at],
        );
      }
      const receipt = await appendAccessRecord(tx, requestedEntry(input, id, cap, recipients));
      return { request: await reads.record((await reads.request(tenantId, id))!, input.at), receipt };
    });
  }

  async get(viewer: Actor, id: string, now: Date): Promise<AccessRequestRecord | undefined> {
    // One snapshot for the request, its cards and its deciders.
    return this.db.tx(async (tx) => {
      const reads = new AccessReads(tx);
      const row = await reads.request(viewer.tenantId, id);
      if (!row) return undefined;
      // A recipient whose card predates a change of owners still reads the request it was asked about.
      const readers = [
        ...(await reads.deciders(row)),
        ...(await reads.cardsOf(row)).map((c) => c.recipient_id),
      ];
      return readsAccessRequest(viewer, facts(row), readers) ? reads.record(row, now) : undefined;
    });
  }

  async revoke(
    viewer: Actor,
    id: string,
    note: string | null,
    at: Date,
  ): Promise<{ request: AccessRequestRecord; receipt: AccessReceipt }> {
    const when = at.toISOString();
    return this.run(viewer.tenantId, `access request ${id}`, async (tx, reads) => {
      const row = await reads.request(viewer.tenantId, id);
      if (!row) throw new SvcError('not_found', 'no such access request');
      const refusal = accessRevokeRefusal(facts(row), viewer, await reads.deciders(row), at);
      if (refusal) throw refusal;
      await tx.query(
        `UPDATE access_requests SET status = 'revoked', revoked_by = $1, revoked_at = $2
         WHERE tenant_id = $3 AND id = $4 AND status IN ('pending', 'approved')`,
        [viewer.id, when, viewer.tenantId, id],
      );
      if (row.entitlement_id !== null) {
        await tx.query(
          `UPDATE entitlements SET revoked_at = $1, revoked_by = $2
           WHERE tenant_id = $3 AND id = $4 AND revoked_at IS NULL`,
          [when, viewer.id, viewer.tenantId, row.entitlement_id],
        );
      }
      const receipt = await appendAccessRecord(tx, requestRevokedEntry(row, viewer, when, note));
      return { request: await reads.record((await reads.request(viewer.tenantId, id))!, at), receipt };
    });
  }
}
