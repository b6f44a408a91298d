import type { CardRecipient } from '../../core/access.js';
import type { Actor } from '../../core/actor.js';
import { SvcError } from '../../core/errors.js';
import type { AccessJournalInput } from '../../core/records/access-record.js';
import type { NewAccessRequest } from '../access-ports.js';
import type { RequestRow } from './access.js';
import type { DbInt } from './numbers.js';

/** The requested capability's columns an access request is judged on. */
export interface RequestableRow {
  requestable: DbInt;
  owners: string;
  tier: DbInt;
}

const CATALOGUE = 'GET /v1/catalogue lists the capabilities you can request';

/** Refuses a capability that is not registered or not requestable. */
export function checkRequestable(capability: string, cap: RequestableRow | undefined): RequestableRow {
  if (!cap || Number(cap.requestable) !== 1) {
    throw new SvcError(
      'forbidden',
      `${capability} is not in your catalogue: ${cap ? 'it is not requestable' : 'no such capability is registered'}`,
      { code: 'not_in_catalogue', field: 'capability', remedy: CATALOGUE },
    );
  }
  return cap;
}

/** Refuses a request for what the requester holds already, or has a request pending for. */
export function checkNotHeldOrPending(
  capability: string,
  held: boolean,
  open: { id: string } | undefined,
): void {
  if (held) {
    throw new SvcError('conflict', `you already hold ${capability}`, {
      code: 'already_held',
      remedy: 'GET /v1/capabilities lists what you hold',
    });
  }
  if (open) {
    throw new SvcError('conflict', `access request ${open.id} for ${capability} is already pending`, {
      code: 'request_pending',
      remedy: `wait for its decision (\`svc access show ${open.id}\`), or revoke it first (\`svc access revoke ${open.id}\`)`,
    });
  }
}

/** Refuses a request nobody (no human) can decide. */
export function checkDeciders(capability: string, recipients: CardRecipient[]): void {
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

export const requestedEntry = (
  input: NewAccessRequest,
  id: string,
  cap: RequestableRow,
  recipients: CardRecipient[],
): AccessJournalInput => ({
  tenantId: input.tenantId,
  step: 'requested',
  actorId: input.actorId,
  subjectId: id,
  capability: input.capability,
  tier: Number(cap.tier),
  at: input.at.toISOString(),
  fields: {
    access_request_id: id,
    requester_id: input.actorId,
    access_reason: input.reason,
    duration_seconds: input.durationSeconds,
    recipients: recipients.map((r) => r.recipientId),
  },
});

export const requestRevokedEntry = (
  row: RequestRow,
  viewer: Actor,
  when: string,
  note: string | null,
): AccessJournalInput => ({
  tenantId: viewer.tenantId,
  step: 'revoked',
  actorId: viewer.id,
  subjectId: row.id,
  capability: row.capability,
  tier: row.tier ?? 0,
  at: when,
  fields: {
    access_request_id: row.id,
    requester_id: row.actor_id,
    previous_status: row.status,
    entitlement_id: row.entitlement_id,
    note,
  },
});
