import { checkGuarded } from '../guarded-write.js';
import { asker, type UseCase } from '../use-case.js';
import { emitEvent, type OutboxOps } from './outbox.js';
import { approvalData, type ApprovalEventFacts } from './payloads.js';

/** A pending approval past its expiry, not yet announced. */
export interface ExpiredApproval extends ApprovalEventFacts {
  tenantId: string;
}

/** The store operations of the expiry sweep, in one transaction. */
export interface ApprovalExpiryOps extends OutboxOps {
  /**
   * Up to `limit` approvals still pending at `now` past their expiry and not yet announced,
   * oldest expiry first; on PostgreSQL locked so that a second replica's sweep skips them.
   */
  unannouncedExpired(now: string, limit: number): ExpiredApproval[];
  /** the guarded mark: changes the row only while it is pending, expired at `now` and unannounced */
  markExpiryAnnounced(tenantId: string, approvalId: string, now: string): number;
}

const ask = asker<ApprovalExpiryOps>();

/**
 * `approval.expired`, once per approval: the daemon's timer runs this; each approval found
 * is marked announced and its event written in the same transaction, so a sweep that rolls
 * back announces nothing and a repeated sweep announces nothing twice. An approval of a
 * tenant without subscribers is marked all the same (nothing is written for it), so the
 * sweep never scans it again. Returns how many approvals were marked.
 */
export function* approvalExpiry(now: Date, limit: number): UseCase<ApprovalExpiryOps, number> {
  const at = now.toISOString();
  const expired = yield* ask('unannouncedExpired', at, limit);
  for (const a of expired) {
    checkGuarded('the expiry announcement', yield* ask('markExpiryAnnounced', a.tenantId, a.id, at));
    yield* emitEvent(a.tenantId, 'approval.expired', at, () => ({ ...approvalData(a), status: 'expired' }));
  }
  return expired.length;
}
