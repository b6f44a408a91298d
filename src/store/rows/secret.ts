import type { StoredSecret } from '../integration-ports.js';

/** A secrets row as both drivers return it: sealed bytes only, never the key that opens them. */
export interface SecretRow {
  name: string;
  key_id: string;
  sealed: Buffer;
  created_at: string;
  updated_at: string;
}

export const toStoredSecret = (r: SecretRow): StoredSecret => ({
  name: r.name,
  keyId: r.key_id,
  createdAt: r.created_at,
  updatedAt: r.updated_at,
});
