import type { TokenRecord, TokenSummary } from '../ports.js';

/** A tokens row as both drivers return it (the hash as a Buffer). */
export interface TokenRow {
  id: string;
  tenant_id: string;
  actor_id: string;
  secret_hash: Buffer;
  label: string | null;
  created_at: string;
  expires_at: string;
  revoked_at: string | null;
}

export function toTokenSummary(r: Omit<TokenRow, 'secret_hash'>): TokenSummary {
  return {
    id: r.id,
    tenantId: r.tenant_id,
    actorId: r.actor_id,
    label: r.label,
    createdAt: r.created_at,
    expiresAt: r.expires_at,
    revokedAt: r.revoked_at,
  };
}

export const toTokenRecord = (r: TokenRow): TokenRecord => ({
  ...toTokenSummary(r),
  secretHash: new Uint8Array(r.secret_hash),
});

/** The values of a token's row in column order (id, tenant_id, actor_id, secret_hash, label, created_at, expires_at, revoked_at). */
export const tokenValues = (t: TokenRecord): unknown[] => [
  t.id,
  t.tenantId,
  t.actorId,
  Buffer.from(t.secretHash),
  t.label,
  t.createdAt,
  t.expiresAt,
  t.revokedAt,
];
