import type { UseCase } from '../use-case.js';
import { emitEvent, type OutboxOps } from './outbox.js';

/** What failed at one anchor: the timestamp authority, or one witness (by its pinned id). */
export interface AttestationFailure {
  /** the anchor's tree size: which signed head went without the attestation */
  treeSize: number;
  attestation: 'timestamp' | 'witness';
  /** the witness's pinned id (`--witness URL=ID=KEY`); null for the timestamp authority */
  witnessId: string | null;
  /** `unreachable` (no answer, an error) or `refused` (an answer not from the pinned witness) */
  reason: 'unreachable' | 'refused';
}

/**
 * The payload of `attestation.failed`: which anchor and which attestation, never the URL, the
 * error text or anything the witness answered (an administrator reads those in the log).
 */
export function attestationFailedData(f: AttestationFailure): Record<string, unknown> {
  return {
    tree_size: f.treeSize,
    attestation: f.attestation,
    witness_id: f.witnessId,
    reason: f.reason,
  };
}

/**
 * `attestation.failed`: a witness or the timestamp authority did not attest an anchor. Not
 * the record of a change (the anchor stands without it), so it is written in a transaction of
 * its own, and only for a tenant with a subscriber. Returns the event id, or null.
 */
export function attestationFailed(
  tenantId: string,
  at: string,
  f: AttestationFailure,
): UseCase<OutboxOps, string | null> {
  return emitEvent(tenantId, 'attestation.failed', at, () => attestationFailedData(f));
}
