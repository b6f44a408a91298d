import type { JournalAppend } from '../../evidence/journal-append.js';
import type { Tombstone } from '../../evidence/export-line.js';
import { REDACTION_CAPABILITY } from '../../evidence/tombstone.js';
import { newId } from '../ids.js';
import type { RecordIds } from './sealed-receipt.js';

/**
 * The redaction record R (evidence-format.md §7): it carries the range's tombstone both in its
 * private record and in its entry's preimage. Its intent id is random, like every record's.
 */
export function redactionRecord(
  r: { tenantId: string; authorisedBy: string; tombstone: Tombstone; at: string },
  ids: RecordIds = newId,
): JournalAppend {
  const receiptId = ids('rcp');
  const intentId = ids('int');
  return {
    tenantId: r.tenantId,
    kind: 'redaction',
    receiptId,
    taskId: null,
    intentId,
    actorId: r.authorisedBy,
    capability: REDACTION_CAPABILITY,
    tier: 0,
    allowed: true,
    grantId: '',
    amountMicros: 0n,
    occurredAt: r.at,
    record: {
      v: 1,
      kind: 'redaction',
      receipt_id: receiptId,
      intent_id: intentId,
      tenant_id: r.tenantId,
      actor_id: r.authorisedBy,
      capability: REDACTION_CAPABILITY,
      outcome: 'allowed',
      allowed: true,
      reason: r.tombstone.reason,
      tombstone: r.tombstone,
      occurred_at: r.at,
    },
    tombstone: r.tombstone,
  };
}
