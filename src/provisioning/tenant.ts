import { checkActorInput } from '../core/actor.js';
import { SvcError } from '../core/errors.js';
import { checkSlug } from '../core/ids.js';
import { newToken } from '../core/token.js';
import type { DataDir } from '../store/data-dir.js';
import { Keyring } from '../store/keyring.js';
import type { Store, TokenRecord } from '../store/ports.js';
import { DEFAULT_TOKEN_TTL_MS } from './token.js';

export interface CreatedTenant {
  tenant_id: string;
  key_id: string;
  public_key: string;
  admin_id?: string;
  admin_token?: string;
  admin_token_id?: string;
  admin_token_expires_at?: string;
}

/**
 * A tenant is made with its own journal signing key, so each tenant's auditors pin
 * their own key; optionally with its first human administrator and that person's token.
 */
export async function createTenant(
  dir: DataDir,
  store: Store,
  opts: { tenantId: string; adminId?: string; now: Date },
): Promise<CreatedTenant> {
  const tenantId = checkSlug('tenant', opts.tenantId);
  if (await store.tenants.get(tenantId)) {
    throw new SvcError('already_exists', `tenant ${tenantId} already exists`);
  }
  const at = opts.now.toISOString();
  const admin =
    opts.adminId === undefined
      ? undefined
      : checkActorInput(
          { tenantId, id: opts.adminId, kind: 'human', roles: ['administrator', 'operator', 'approver'] },
          at,
        );
  let adminToken: (TokenRecord & { token: string }) | undefined;
  if (admin) {
    const t = newToken();
    adminToken = {
      id: t.id,
      tenantId,
      actorId: admin.id,
      secretHash: t.secretHash,
      label: 'first administrator',
      createdAt: at,
      expiresAt: new Date(opts.now.getTime() + DEFAULT_TOKEN_TTL_MS).toISOString(),
      revokedAt: null,
      token: t.token,
    };
  }
  const key = await Keyring.mint(dir, store, tenantId);
  try {
    await store.tenants.create({
      tenant: { id: tenantId, createdAt: at },
      signingKey: {
        tenantId,
        keyId: key.keyId,
        publicKey: key.publicKey,
        algorithm: 'ed25519',
        createdAt: at,
      },
      ...(admin ? { admin } : {}),
      ...(adminToken ? { adminToken } : {}),
    });
  } catch (err) {
    await key.discard();
    throw err;
  }
  const out: CreatedTenant = { tenant_id: tenantId, key_id: key.keyId, public_key: key.publicKey };
  if (admin && adminToken) {
    out.admin_id = admin.id;
    out.admin_token = adminToken.token;
    out.admin_token_id = adminToken.id;
    out.admin_token_expires_at = adminToken.expiresAt;
  }
  return out;
}
