import type { Appended, JournalAppend } from '../evidence/journal-append.js';
import { cardDecisionRefusal, grantedSeconds, type AccessDecision, type AccessFacts } from './access.js';
import type { Actor } from './actor.js';
import { SvcError } from './errors.js';
import { checkGuarded } from './guarded-write.js';
import { newId } from './ids.js';
import { emitEvent, type OutboxOps } from './notify/outbox.js';
import { cardDecidedData } from './notify/payloads.js';
import { accessRecord } from './records/access-record.js';
import { asker, type UseCase } from './use-case.js';

/** A manager's or an owner's decision on the card addressed to them. */
export interface CardDecisionInput {
  tenantId: string;
  cardId: string;
  deciderId: string;
  decision: AccessDecision;
  /** approve only: at most the requested duration; the requested one when absent */
  durationSeconds?: number | undefined;
  note: string | null;
  at: Date;
}

/** A card as it is judged: its request, and who decides that request as registration stands now. */
export interface CardToDecide {
  card: { id: string; recipientId: string };
  request: AccessFacts;
  /** the capability's tier; null when it is no longer registered */
  tier: number | null;
  /** the requester's manager and the capability's owners, as registered now */
  deciders: string[];
}

/**
 * The decision's write on the request. It carries the state it was judged on: the request
 * is changed only while it is still `expect.status`.
 */
export interface CardDecisionWrite {
  tenantId: string;
  requestId: string;
  status: 'approved' | 'denied';
  decision: AccessDecision;
  decidedBy: string;
  decidedAt: string;
  grantedSeconds: number | null;
  note: string | null;
  entitlementId: string | null;
  expect: { status: 'pending' };
}

/** The entitlement an approval creates. */
export interface NewEntitlement {
  tenantId: string;
  id: string;
  actorId: string;
  capability: string;
  accessRequestId: string;
  createdAt: string;
  expiresAt: string;
}

/**
 * The store operations a card decision asks for, all inside the one transaction that
 * records it (the tenant's lock, or SQLite's single writer, taken before the first read).
 * `V` is the card, its request and the entitlement as the store's readers see them; core
 * only hands it back.
 */
export interface CardDecisionOps<V> extends OutboxOps {
  /** a registered actor of the tenant */
  actor(tenantId: string, actorId: string): Actor | undefined;
  card(tenantId: string, cardId: string): CardToDecide | undefined;
  /** the guarded write: how many rows it changed */
  decide(write: CardDecisionWrite): number;
  grant(entitlement: NewEntitlement): void;
  append(record: JournalAppend, at: string): Appended;
  /** the card, its request and the entitlement (if one was granted) once decided */
  decided(tenantId: string, cardId: string, entitlementId: string | null, now: Date): V;
}

export type CardDecided<V> = V & { receipt: { receiptId: string; sequence: number } };

/** What deciding a card writes: the request's new state and, on approval, the entitlement. */
interface CardPlan {
  status: 'approved' | 'denied';
  seconds: number | null;
  entitlement: { id: string; expiresAt: string } | null;
}

/**
 * Judges a card decision (refusing whatever `cardDecisionRefusal` refuses, and a duration
 * on a denial) and plans its writes.
 */
function planCardDecision(c: CardToDecide, decider: Actor, input: CardDecisionInput): CardPlan {
  const refusal = cardDecisionRefusal(c.request, c.card, decider, c.deciders, input.at);
  if (refusal) throw refusal;
  if (input.decision === 'deny' && input.durationSeconds !== undefined) {
    throw new SvcError('invalid_request', 'duration_seconds: only an approval grants a duration', {
      field: 'duration_seconds',
    });
  }
  if (input.decision === 'deny') return { status: 'denied', seconds: null, entitlement: null };
  const seconds = grantedSeconds(c.request.durationSeconds, input.durationSeconds);
  return {
    status: 'approved',
    seconds,
    entitlement: { id: newId('ent'), expiresAt: new Date(input.at.getTime() + seconds * 1000).toISOString() },
  };
}

/** The journal record of a card decision. */
function cardDecisionRecord(
  c: CardToDecide,
  decider: Actor,
  input: CardDecisionInput,
  d: CardPlan,
): JournalAppend {
  const r = c.request;
  return accessRecord({
    tenantId: input.tenantId,
    step: d.status,
    actorId: decider.id,
    subjectId: r.id,
    capability: r.capability,
    tier: c.tier ?? 0,
    at: input.at.toISOString(),
    fields: {
      access_request_id: r.id,
      card_id: c.card.id,
      requester_id: r.requesterId,
      decision: input.decision,
      duration_seconds: r.durationSeconds,
      granted_seconds: d.seconds,
      entitlement_id: d.entitlement?.id ?? null,
      expires_at: d.entitlement?.expiresAt ?? null,
      note: input.note,
    },
  });
}

/**
 * A manager card decided, once for both stores: the decider is a registered actor, the card
 * exists and is theirs to decide now (core/access.ts `cardDecisionRefusal`), the guarded
 * write on the request, the entitlement an approval creates, the journal record, and what
 * its readers now see. The first decision of a request wins.
 */
export function* cardDecision<V extends object>(
  input: CardDecisionInput,
): UseCase<CardDecisionOps<V>, CardDecided<V>> {
  const ask = asker<CardDecisionOps<V>>();
  const { tenantId, cardId } = input;
  const at = input.at.toISOString();
  const decider = yield* ask('actor', tenantId, input.deciderId);
  if (!decider)
    throw new SvcError('forbidden', `${input.deciderId} is not a registered actor of this tenant`);
  const c = yield* ask('card', tenantId, cardId);
  if (!c) throw new SvcError('not_found', 'no such manager card');
  const plan = planCardDecision(c, decider, input);
  const changed = yield* ask('decide', {
    tenantId,
    requestId: c.request.id,
    status: plan.status,
    decision: input.decision,
    decidedBy: decider.id,
    decidedAt: at,
    grantedSeconds: plan.seconds,
    note: input.note,
    entitlementId: plan.entitlement?.id ?? null,
    expect: { status: 'pending' },
  });
  checkGuarded('the access request decision', changed);
  if (plan.entitlement) {
    yield* ask('grant', {
      tenantId,
      id: plan.entitlement.id,
      actorId: c.request.requesterId,
      capability: c.request.capability,
      accessRequestId: c.request.id,
      createdAt: at,
      expiresAt: plan.entitlement.expiresAt,
    });
  }
  const record = cardDecisionRecord(c, decider, input, plan);
  const appended = yield* ask('append', record, at);
  yield* emitEvent(tenantId, 'manager_card.decided', at, () =>
    cardDecidedData({
      cardId,
      accessRequestId: c.request.id,
      requesterId: c.request.requesterId,
      capability: c.request.capability,
      status: plan.status,
      decidedBy: decider.id,
      decidedAt: at,
      grantedSeconds: plan.seconds,
      entitlementId: plan.entitlement?.id ?? null,
      entitlementExpiresAt: plan.entitlement?.expiresAt ?? null,
      receiptId: record.receiptId,
    }),
  );
  const views = yield* ask('decided', tenantId, cardId, plan.entitlement?.id ?? null, input.at);
  return { ...views, receipt: { receiptId: record.receiptId, sequence: appended.sequence } };
}
