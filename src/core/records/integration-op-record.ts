import type { JournalAppend } from '../../evidence/journal-append.js';
import { newId } from '../ids.js';
import type { RecordIds } from './sealed-receipt.js';

/**
 * The journal record of an integration operation (rotate, revoke, connection check).
 * Credential references stay in the private record (only its hash is published); a
 * credential value is never given to this function.
 */
export function integrationOpRecord(
  r: {
    tenantId: string;
    surfaceId: string;
    actorId: string;
    at: string;
    fields: Record<string, unknown> & { action: string; outcome: string; reason: string };
  },
  ids: RecordIds = newId,
): JournalAppend {
  const receiptId = ids('rcp');
  const intentId = ids('iop');
  const capability = `integration-ops:${r.surfaceId}`;
  return {
    tenantId: r.tenantId,
    kind: 'integration_op',
    receiptId,
    taskId: null,
    intentId,
    actorId: r.actorId,
    capability,
    tier: 0,
    allowed: true,
    grantId: '',
    amountMicros: 0n,
    occurredAt: r.at,
    record: {
      v: 1,
      kind: 'integration_op',
      receipt_id: receiptId,
      intent_id: intentId,
      tenant_id: r.tenantId,
      actor_id: r.actorId,
      surface_id: r.surfaceId,
      capability,
      ...r.fields,
      occurred_at: r.at,
    },
  };
}
