import { cardDecisionRefusal, grantedSeconds } from '../../core/access.js';
import type { Actor } from '../../core/actor.js';
import { SvcError } from '../../core/errors.js';
import { newId } from '../../core/ids.js';
import type { AccessJournalInput } from '../../core/records/access-record.js';
import type { CardDecisionInput } from '../access-ports.js';
import { facts, type CardRow, type RequestRow } from './access.js';

/** What deciding a card writes: the request's new state and, on approval, the entitlement. */
export interface CardDecision {
  status: 'approved' | 'denied';
  seconds: number | null;
  entitlementId: string | null;
  expiresAt: string | null;
}

/**
 * Judges a card decision on the request as read under the caller's lock (refusing whatever
 * `cardDecisionRefusal` refuses, and a duration on a denial) and plans its writes.
 */
export function planCardDecision(
  row: RequestRow,
  card: CardRow,
  decider: Actor,
  deciders: string[],
  input: CardDecisionInput,
): CardDecision {
  const refusal = cardDecisionRefusal(
    facts(row),
    { id: card.id, recipientId: card.recipient_id },
    decider,
    deciders,
    input.at,
  );
  if (refusal) throw refusal;
  if (input.decision === 'deny' && input.durationSeconds !== undefined) {
    throw new SvcError('invalid_request', 'duration_seconds: only an approval grants a duration', {
      field: 'duration_seconds',
    });
  }
  const approve = input.decision === 'approve';
  const seconds = approve ? grantedSeconds(row.duration_seconds, input.durationSeconds) : null;
  return {
    status: approve ? 'approved' : 'denied',
    seconds,
    entitlementId: approve ? newId('ent') : null,
    expiresAt: seconds === null ? null : new Date(input.at.getTime() + seconds * 1000).toISOString(),
  };
}

/** The journal entry of a card decision. */
export const cardDecisionEntry = (
  row: RequestRow,
  card: CardRow,
  decider: Actor,
  input: CardDecisionInput,
  d: CardDecision,
): AccessJournalInput => ({
  tenantId: input.tenantId,
  step: d.status,
  actorId: decider.id,
  subjectId: row.id,
  capability: row.capability,
  tier: row.tier ?? 0,
  at: input.at.toISOString(),
  fields: {
    access_request_id: row.id,
    card_id: card.id,
    requester_id: row.actor_id,
    decision: input.decision,
    duration_seconds: row.duration_seconds,
    granted_seconds: d.seconds,
    entitlement_id: d.entitlementId,
    expires_at: d.expiresAt,
    note: input.note,
  },
});
