import type { Appended, JournalAppend } from '../evidence/journal-append.js';
import type { Actor } from './actor.js';
import type { SealedReceipt } from './decision/sealed.js';
import { SvcError } from './errors.js';
import { checkGuarded } from './guarded-write.js';
import { emitEvent, type OutboxOps } from './notify/outbox.js';
import { surfaceRevokedData } from './notify/payloads.js';
import { integrationOpRecord } from './records/integration-op-record.js';
import { receiptOf } from './records/sealed-receipt.js';
import { asker, type UseCase } from './use-case.js';

/**
 * A surface's state in one tenant, once an administrator rotated or revoked it. Until then
 * there is no row: the document's credential reference applies and the surface is active.
 */
export interface SurfaceState {
  tenantId: string;
  surfaceId: string;
  credentialRef: string;
  /** references this surface moved away from; it never goes back to one */
  retiredRefs: string[];
  status: 'active' | 'revoked';
  rotatedAt: string | null;
  revokedAt: string | null;
  updatedBy: string;
  updatedAt: string;
}

export interface SurfaceChange {
  state: SurfaceState;
  receipt: SealedReceipt;
}

/** What a connection check answered, as journaled. */
export interface ConnectionCheck {
  credentialRef: string;
  answer: string;
  reason: string;
  detail: Record<string, unknown>;
}

/** The state a surface change was decided on, which its write must still find. */
export type SurfaceExpected = Pick<SurfaceState, 'credentialRef' | 'status' | 'updatedAt'>;

/**
 * The store operations of integration operations, inside one transaction that holds the
 * tenant's writer (SQLite's single writer, PostgreSQL's tenant lock), so two rotations of one
 * surface take turns and the second sees the first's retired reference.
 */
export interface SurfaceOps extends OutboxOps {
  surface(tenantId: string, surfaceId: string): SurfaceState | undefined;
  /** store the first state of a surface that has none stored yet: the rows inserted */
  insertSurface(state: SurfaceState): number;
  /** store the surface's new state where it is still `expected`: the rows changed */
  updateSurface(state: SurfaceState, expected: SurfaceExpected): number;
  append(record: JournalAppend, at: string): Appended;
}

const ask = asker<SurfaceOps>();

/** The fields of an integration operation's journal record. */
type SurfaceOpFields = Record<string, unknown> & { action: string; outcome: string; reason: string };
type Change = (before: SurfaceState, at: string) => { state: SurfaceState; fields: SurfaceOpFields };

/** Move to `next`, retire the current reference and reactivate, journaled in one transaction. */
export function rotateSurface(
  tenantId: string,
  surfaceId: string,
  o: { documentRef: string; next: string; actor: Actor },
  clock: () => Date,
): UseCase<SurfaceOps, SurfaceChange> {
  return change(tenantId, surfaceId, o, clock, (before, at) => rotation(before, o.next, o.actor, at));
}

/** Withdraw the surface: decisions read the state in their own transaction, so it holds at once. */
export function revokeSurface(
  tenantId: string,
  surfaceId: string,
  o: { documentRef: string; actor: Actor },
  clock: () => Date,
): UseCase<SurfaceOps, SurfaceChange> {
  return change(tenantId, surfaceId, o, clock, (before, at) => revocation(before, o.actor, at));
}

/** Journal what a connection check answered. */
export function* journalCheck(
  tenantId: string,
  surfaceId: string,
  actor: Actor,
  check: ConnectionCheck,
  clock: () => Date,
): UseCase<SurfaceOps, SealedReceipt> {
  return yield* seal(tenantId, surfaceId, actor, clock().toISOString(), {
    action: 'connection_check',
    outcome: check.answer,
    reason: check.reason,
    effect: check.detail,
    credential_ref: check.credentialRef,
  });
}

function* change(
  tenantId: string,
  surfaceId: string,
  o: { documentRef: string; actor: Actor },
  clock: () => Date,
  apply: Change,
): UseCase<SurfaceOps, SurfaceChange> {
  const at = clock().toISOString();
  const stored = yield* ask('surface', tenantId, surfaceId);
  const before = stored ?? documentState(tenantId, surfaceId, o.documentRef, o.actor, at);
  const { state, fields } = apply(before, at);
  // Guarded on the state the change was decided on: none stored yet, or the one read.
  const changed =
    stored === undefined
      ? yield* ask('insertSurface', state)
      : yield* ask('updateSurface', state, {
          credentialRef: stored.credentialRef,
          status: stored.status,
          updatedAt: stored.updatedAt,
        });
  checkGuarded(`the state of surface ${surfaceId}`, changed);
  const receipt = yield* seal(tenantId, surfaceId, o.actor, at, fields);
  if (state.status === 'revoked' && before.status !== 'revoked') {
    yield* emitEvent(tenantId, 'integration.surface_revoked', at, () =>
      surfaceRevokedData({ surfaceId, revokedBy: o.actor.id, revokedAt: at, receiptId: receipt.receiptId }),
    );
  }
  return { state, receipt };
}

/**
 * The journal record of an integration operation. Credential references stay in the private
 * record (only its hash is published); a credential value is never given here.
 */
function* seal(
  tenantId: string,
  surfaceId: string,
  actor: Actor,
  at: string,
  fields: SurfaceOpFields,
): UseCase<SurfaceOps, SealedReceipt> {
  const record = integrationOpRecord({ tenantId, surfaceId, actorId: actor.id, at, fields });
  return receiptOf(record, yield* ask('append', record, at));
}

/** A surface never changed yet: the credential its document names, active. */
function documentState(
  tenantId: string,
  surfaceId: string,
  documentRef: string,
  actor: Actor,
  at: string,
): SurfaceState {
  return {
    tenantId,
    surfaceId,
    credentialRef: documentRef,
    retiredRefs: [],
    status: 'active',
    rotatedAt: null,
    revokedAt: null,
    updatedBy: actor.id,
    updatedAt: at,
  };
}

/** A rotation to `next`, refused when it is the current or a retired reference. */
function rotation(
  before: SurfaceState,
  next: string,
  actor: Actor,
  at: string,
): { state: SurfaceState; fields: SurfaceOpFields } {
  const surfaceId = before.surfaceId;
  if (before.credentialRef === next) {
    throw new SvcError('conflict', `surface ${surfaceId} already uses that credential reference`, {
      code: 'credential_in_use',
    });
  }
  // A retired credential may be compromised: a surface never goes back to one.
  if (before.retiredRefs.includes(next)) {
    throw new SvcError('conflict', `surface ${surfaceId} retired that credential reference`, {
      code: 'credential_retired',
      remedy: 'rotate to a new reference, such as a new secret (`svc secret set`)',
    });
  }
  const state: SurfaceState = {
    ...before,
    credentialRef: next,
    retiredRefs: [...before.retiredRefs, before.credentialRef],
    status: 'active',
    rotatedAt: at,
    updatedBy: actor.id,
    updatedAt: at,
  };
  const reason =
    before.status === 'revoked'
      ? `surface ${surfaceId} moved to a new credential and is active again; the old credential is retired`
      : `surface ${surfaceId} moved to a new credential; the old credential is retired`;
  return {
    state,
    fields: {
      action: 'rotate',
      outcome: 'rotated',
      reason,
      credential_ref: next,
      previous_ref: before.credentialRef,
    },
  };
}

/** A revocation, refused when the surface is already revoked. */
function revocation(
  before: SurfaceState,
  actor: Actor,
  at: string,
): { state: SurfaceState; fields: SurfaceOpFields } {
  if (before.status === 'revoked') {
    throw new SvcError(
      'conflict',
      `surface ${before.surfaceId} is already revoked (at ${before.revokedAt})`,
      {
        code: 'surface_revoked',
        remedy: 'rotate it to a new credential reference to use it again',
      },
    );
  }
  return {
    state: { ...before, status: 'revoked', revokedAt: at, updatedBy: actor.id, updatedAt: at },
    fields: {
      action: 'revoke',
      outcome: 'revoked',
      reason: `surface ${before.surfaceId} is withdrawn: new operations on it are refused. This records the daemon's own revocation, not the vendor's`,
      credential_ref: before.credentialRef,
    },
  };
}
