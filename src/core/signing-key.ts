import { SvcError } from './errors.js';
import { checkGuarded } from './guarded-write.js';
import { asker, type UseCase } from './use-case.js';

/** A tenant's journal signing key as stored: at most one is active; retired ones verify older heads. */
export interface SigningKeyRecord {
  tenantId: string;
  keyId: string;
  /** base64 of the 32 raw Ed25519 public key bytes */
  publicKey: string;
  algorithm: 'ed25519';
  status: 'active' | 'retired';
  createdAt: string;
  retiredAt: string | null;
}

export type NewSigningKey = Omit<SigningKeyRecord, 'status' | 'retiredAt'>;

/** The store operations of a key rotation, inside one transaction under the tenant's writer. */
export interface KeyRotationOps {
  /** the id of the tenant's active key, if it has one */
  activeKey(tenantId: string): string | undefined;
  /** retire the key where it is still active; answers the rows changed */
  retireKey(tenantId: string, keyId: string, at: string): number;
  insertKey(key: SigningKeyRecord): void;
}

const ask = asker<KeyRotationOps>();

/** Retire the tenant's active key and make `next` active: older heads keep naming the key that signed them. */
export function* keyRotation(next: NewSigningKey): UseCase<KeyRotationOps, SigningKeyRecord> {
  const active = yield* ask('activeKey', next.tenantId);
  if (active === undefined)
    throw new SvcError('not_found', `tenant ${next.tenantId} has no active signing key`);
  checkGuarded(
    `the retirement of key ${active}`,
    yield* ask('retireKey', next.tenantId, active, next.createdAt),
  );
  const key: SigningKeyRecord = { ...next, status: 'active', retiredAt: null };
  yield* ask('insertKey', key);
  return key;
}
