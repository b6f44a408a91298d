import {
  accessRevokeRefusal,
  cardRecipients,
  type AccessFacts,
  type CardRecipient,
  type CardRole,
} from './access.js';
import type { AccessWrites } from './access-writes.js';
import type { Actor } from './actor.js';
import { SvcError } from './errors.js';
import { checkGuarded } from './guarded-write.js';
import { newId } from './ids.js';
import { emitEvent, type OutboxOps } from './notify/outbox.js';
import { accessRequestData } from './notify/payloads.js';
import type { AccessJournalInput, AccessReceipt } from './records/access-record.js';
import { asker, type UseCase } from './use-case.js';

/**
 * An access request opened and withdrawn (semantics.md, Access), once for both stores: the
 * refusals and the journal record are decided here, the store only reads and writes. The
 * rules shared with the card decision and the routes are in access.ts.
 */

export interface NewAccessRequest {
  tenantId: string;
  actorId: string;
  capability: string;
  reason: string;
  durationSeconds: number;
  at: Date;
}

/** The requested capability as registered: what a request for it is judged on. */
export interface Requestable {
  requestable: boolean;
  /** its named owners, who decide requests for it besides the requester's manager */
  owners: string[];
  tier: number;
}

/** A stored request with what its withdrawal is judged on. */
export interface StoredRequest extends AccessFacts {
  entitlementId: string | null;
  /** the capability's tier as registered now; null if it is gone */
  tier: number | null;
  /** who decides it as registration stands now: the requester's manager and the capability's owners */
  deciders: string[];
}

/** A new pending request and its cards, one for each decider. */
export interface RequestOpening {
  tenantId: string;
  id: string;
  actorId: string;
  capability: string;
  reason: string;
  durationSeconds: number;
  at: string;
  cards: { id: string; recipientId: string; role: CardRole }[];
}

/** The store operations of opening and withdrawing a request, inside the one transaction that records it. */
export interface AccessRequestOps extends AccessWrites, OutboxOps {
  actor(tenantId: string, id: string): Actor | undefined;
  requestable(tenantId: string, capability: string): Requestable | undefined;
  /**
   * Whether the actor holds the capability at `at` (a standing permission or a live
   * entitlement, as the decision tests at step 6), and its request for it still pending.
   */
  standing(
    tenantId: string,
    actorId: string,
    capability: string,
    at: string,
  ): { held: boolean; pendingId?: string };
  /** those of `ids` registered as humans in the tenant */
  humans(tenantId: string, ids: string[]): string[];
  openRequest(opening: RequestOpening): void;
  request(tenantId: string, id: string): StoredRequest | undefined;
}

const ask = asker<AccessRequestOps>();

const CATALOGUE = 'GET /v1/catalogue lists the capabilities you can request';

/** Refuses a capability that is not registered or not requestable. */
function checkRequestable(capability: string, cap: Requestable | undefined): Requestable {
  if (!cap?.requestable) {
    throw new SvcError(
      'forbidden',
      `${capability} is not in your catalogue: ${cap ? 'it is not requestable' : 'no such capability is registered'}`,
      { code: 'not_in_catalogue', field: 'capability', remedy: CATALOGUE },
    );
  }
  return cap;
}

/** Refuses a request for what the requester holds already, or has a request pending for. */
function checkNotHeldOrPending(capability: string, standing: { held: boolean; pendingId?: string }): void {
  if (standing.held) {
    throw new SvcError('conflict', `you already hold ${capability}`, {
      code: 'already_held',
      remedy: 'GET /v1/capabilities lists what you hold',
    });
  }
  const open = standing.pendingId;
  if (open !== undefined) {
    throw new SvcError('conflict', `access request ${open} for ${capability} is already pending`, {
      code: 'request_pending',
      remedy: `wait for its decision (\`svc access show ${open}\`), or revoke it first (\`svc access revoke ${open}\`)`,
    });
  }
}

/** Refuses a request nobody (no human) can decide. */
function checkDeciders(capability: string, recipients: CardRecipient[]): void {
  if (recipients.length === 0) {
    throw new SvcError(
      'conflict',
      `nobody can decide a request for ${capability}: you have no manager and it has no owner`,
      {
        code: 'no_decider',
        remedy: 'ask an administrator to name an owner: svc capability register … --owner <human>',
      },
    );
  }
}

/**
 * Open a request for a capability in the requester's catalogue, with a card for each
 * human decider, and its journal record. Returns the new request's id and the receipt.
 */
export function* accessRequest(
  input: NewAccessRequest,
): UseCase<AccessRequestOps, { id: string; receipt: AccessReceipt }> {
  const { tenantId, actorId, capability } = input;
  const at = input.at.toISOString();
  const requester = yield* ask('actor', tenantId, actorId);
  if (!requester) throw new SvcError('forbidden', `${actorId} is not a registered actor of this tenant`);
  const cap = checkRequestable(capability, yield* ask('requestable', tenantId, capability));
  checkNotHeldOrPending(capability, yield* ask('standing', tenantId, actorId, capability, at));
  // Registration makes managers and owners humans; one removed or changed since is not asked.
  const named = cardRecipients(requester, cap.owners);
  const humans = yield* ask(
    'humans',
    tenantId,
    named.map((r) => r.recipientId),
  );
  const recipients = named.filter((r) => humans.includes(r.recipientId));
  checkDeciders(capability, recipients);
  const id = newId('acr');
  yield* ask('openRequest', {
    tenantId,
    id,
    actorId,
    capability,
    reason: input.reason,
    durationSeconds: input.durationSeconds,
    at,
    cards: recipients.map((r) => ({ id: newId('card'), ...r })),
  });
  const receipt = yield* ask('appendAccess', requestedEntry(input, id, cap.tier, recipients));
  yield* emitEvent(tenantId, 'access_request.created', at, () =>
    accessRequestData({
      id,
      requesterId: actorId,
      capability,
      durationSeconds: input.durationSeconds,
      deciders: recipients.map((r) => r.recipientId),
      createdAt: at,
      receiptId: receipt.receiptId,
    }),
  );
  return { id, receipt };
}

/**
 * Withdraw a pending request, or end an approved one and its entitlement at once, as
 * `viewer`. Both writes expect the state the refusals were judged on.
 */
export function* requestWithdrawal(
  viewer: Actor,
  id: string,
  note: string | null,
  at: Date,
): UseCase<AccessRequestOps, AccessReceipt> {
  const tenantId = viewer.tenantId;
  const request = yield* ask('request', tenantId, id);
  if (!request) throw new SvcError('not_found', 'no such access request');
  const refusal = accessRevokeRefusal(request, viewer, request.deciders, at);
  if (refusal) throw refusal;
  const when = at.toISOString();
  checkGuarded(
    'the request withdrawal',
    yield* ask('revokeRequest', tenantId, id, request.status, viewer.id, when),
  );
  if (request.entitlementId !== null) {
    checkGuarded(
      'the revocation of its entitlement',
      yield* ask('revokeEntitlement', tenantId, request.entitlementId, viewer.id, when),
    );
  }
  return yield* ask('appendAccess', withdrawnEntry(request, viewer, when, note));
}

const requestedEntry = (
  input: NewAccessRequest,
  id: string,
  tier: number,
  recipients: CardRecipient[],
): AccessJournalInput => ({
  tenantId: input.tenantId,
  step: 'requested',
  actorId: input.actorId,
  subjectId: id,
  capability: input.capability,
  tier,
  at: input.at.toISOString(),
  fields: {
    access_request_id: id,
    requester_id: input.actorId,
    access_reason: input.reason,
    duration_seconds: input.durationSeconds,
    recipients: recipients.map((r) => r.recipientId),
  },
});

const withdrawnEntry = (
  r: StoredRequest,
  viewer: Actor,
  when: string,
  note: string | null,
): AccessJournalInput => ({
  tenantId: viewer.tenantId,
  step: 'revoked',
  actorId: viewer.id,
  subjectId: r.id,
  capability: r.capability,
  tier: r.tier ?? 0,
  at: when,
  fields: {
    access_request_id: r.id,
    requester_id: r.requesterId,
    previous_status: r.status,
    entitlement_id: r.entitlementId,
    note,
  },
});
