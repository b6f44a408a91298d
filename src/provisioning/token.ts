import { parseDuration } from '../core/duration.js';
import { SvcError } from '../core/errors.js';
import { checkSlug } from '../core/ids.js';
import { newToken, tokenState, type TokenState } from '../core/token.js';
import type { Store } from '../store/ports.js';
import { requireActor, requireTenant } from './references.js';

export const DEFAULT_TOKEN_TTL_MS = 90 * 86_400_000;
export const TTL_BOUNDS = { minMs: 1_000, maxMs: 3650 * 86_400_000 };

export interface IssuedToken {
  token_id: string;
  token: string;
  actor_id: string;
  tenant_id: string;
  expires_at: string;
}

export interface TokenListing {
  token_id: string;
  actor_id: string;
  label: string | null;
  created_at: string;
  expires_at: string;
  revoked_at: string | null;
  state: TokenState;
}

export function parseTtl(text: string | undefined): number {
  return text === undefined ? DEFAULT_TOKEN_TTL_MS : parseDuration('ttl', text, TTL_BOUNDS);
}

export async function issueToken(
  store: Store,
  opts: { tenantId: string; actorId: string; ttlMs: number; label?: string; now: Date },
): Promise<IssuedToken> {
  await requireTenant(store, opts.tenantId);
  await requireActor(store, opts.tenantId, checkSlug('actor', opts.actorId));
  if (opts.label !== undefined && (opts.label.length > 200 || !opts.label.isWellFormed())) {
    throw new SvcError('invalid_request', 'label: expected at most 200 characters of well-formed text', {
      field: 'label',
    });
  }
  const t = newToken();
  const expiresAt = new Date(opts.now.getTime() + opts.ttlMs).toISOString();
  await store.tokens.insert({
    id: t.id,
    tenantId: opts.tenantId,
    actorId: opts.actorId,
    secretHash: t.secretHash,
    label: opts.label ?? null,
    createdAt: opts.now.toISOString(),
    expiresAt,
    revokedAt: null,
  });
  return {
    token_id: t.id,
    token: t.token,
    actor_id: opts.actorId,
    tenant_id: opts.tenantId,
    expires_at: expiresAt,
  };
}

export async function listTokens(
  store: Store,
  opts: { tenantId: string; actorId?: string; now: Date },
): Promise<TokenListing[]> {
  await requireTenant(store, opts.tenantId);
  const rows = await store.tokens.list(opts.tenantId, opts.actorId);
  return rows.map((r) => ({
    token_id: r.id,
    actor_id: r.actorId,
    label: r.label,
    created_at: r.createdAt,
    expires_at: r.expiresAt,
    revoked_at: r.revokedAt,
    state: tokenState(r, opts.now),
  }));
}

export async function revokeToken(
  store: Store,
  opts: { tenantId: string; tokenId: string; now: Date },
): Promise<{ token_id: string; tenant_id: string; revoked: true }> {
  await requireTenant(store, opts.tenantId);
  if (!/^[0-9a-f]{16}$/.test(opts.tokenId)) {
    throw new SvcError('invalid_request', 'id: expected a token id of 16 hex digits (see `svc token list`)', {
      field: 'id',
    });
  }
  if (!(await store.tokens.revoke(opts.tenantId, opts.tokenId, opts.now.toISOString()))) {
    throw new SvcError('not_found', `token ${opts.tokenId} does not exist in tenant ${opts.tenantId}`);
  }
  return { token_id: opts.tokenId, tenant_id: opts.tenantId, revoked: true };
}
