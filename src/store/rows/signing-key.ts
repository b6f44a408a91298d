import type { SigningKeyRecord } from '../ports.js';

/** A signing_keys row as both drivers return it. */
export interface KeyRow {
  tenant_id: string;
  key_id: string;
  public_key: string;
  algorithm: 'ed25519';
  status: 'active' | 'retired';
  created_at: string;
  retired_at: string | null;
}

export function toKey(r: KeyRow): SigningKeyRecord {
  return {
    tenantId: r.tenant_id,
    keyId: r.key_id,
    publicKey: r.public_key,
    algorithm: r.algorithm,
    status: r.status,
    createdAt: r.created_at,
    retiredAt: r.retired_at,
  };
}
