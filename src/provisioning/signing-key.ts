import { publicKeyPem } from '../evidence/keys.js';
import type { DataDir } from '../store/data-dir.js';
import { Keyring } from '../store/keyring.js';
import type { SigningKeyRecord, Store } from '../store/ports.js';
import { requireTenant } from './references.js';
import { SvcError } from '../core/errors.js';

export interface KeyView {
  tenant_id: string;
  key_id: string;
  public_key: string;
  algorithm: 'ed25519';
  status: 'active' | 'retired';
  created_at: string;
  retired_at: string | null;
  public_key_pem: string;
}

/** What an auditor pins for one key: its id and public key, and when it signed. */
export interface PinnedKey {
  key_id: string;
  public_key: string;
  algorithm: 'ed25519';
  status: 'active' | 'retired';
  created_at: string;
  retired_at: string | null;
}

export function pinnedKey(k: KeyView): PinnedKey {
  return {
    key_id: k.key_id,
    public_key: k.public_key,
    algorithm: k.algorithm,
    status: k.status,
    created_at: k.created_at,
    retired_at: k.retired_at,
  };
}

function view(k: SigningKeyRecord): KeyView {
  return {
    tenant_id: k.tenantId,
    key_id: k.keyId,
    public_key: k.publicKey,
    algorithm: k.algorithm,
    status: k.status,
    created_at: k.createdAt,
    retired_at: k.retiredAt,
    public_key_pem: publicKeyPem(Buffer.from(k.publicKey, 'base64')),
  };
}

export async function showKeys(store: Store, tenantId: string): Promise<{ active: KeyView; all: KeyView[] }> {
  await requireTenant(store, tenantId);
  const all = (await store.keys.list(tenantId)).map(view);
  const active = all.find((k) => k.status === 'active');
  if (!active) throw new SvcError('unavailable', `tenant ${tenantId} has no active signing key`);
  return { active, all };
}

/** A new active key; older heads keep naming the key that signed them. */
export async function rotateKey(dir: DataDir, store: Store, tenantId: string, now: Date): Promise<KeyView> {
  await requireTenant(store, tenantId);
  const key = await Keyring.mint(dir, store, tenantId);
  try {
    const rec = await store.keys.rotate({
      tenantId,
      keyId: key.keyId,
      publicKey: key.publicKey,
      algorithm: 'ed25519',
      createdAt: now.toISOString(),
    });
    return view(rec);
  } catch (err) {
    await key.discard();
    throw err;
  }
}
