import { SvcError } from '../core/errors.js';
import { checkSlug } from '../core/ids.js';
import { hasControlCharacter } from '../integration/header-text.js';
import { openSecretBox } from '../integration/secret-key-source.js';
import type { DataDir } from '../store/data-dir.js';
import type { Store } from '../store/ports.js';
import { requireTenant } from './references.js';

export interface SecretResult {
  tenant_id: string;
  name: string;
  result: 'created' | 'updated';
  key_id: string;
  reference: string;
}

export interface SecretListing {
  name: string;
  reference: string;
  key_id: string;
  created_at: string;
  updated_at: string;
}

/**
 * Seal a credential for `secret:NAME` references. The value arrives from stdin, a file or a
 * hidden prompt, never from a flag, and is never echoed, listed or logged.
 */
export async function setSecret(
  dir: DataDir,
  store: Store,
  o: { tenantId: string; name: string; value: string; now: Date },
): Promise<SecretResult> {
  await requireTenant(store, o.tenantId);
  const name = checkSlug('name', o.name);
  // Input from `echo` or an editor ends with a newline that is not part of the credential.
  const value = o.value.replace(/\r?\n$/, '');
  if (value === '') throw new SvcError('invalid_request', 'value: the secret is empty', { field: 'value' });
  if (hasControlCharacter(value)) {
    throw new SvcError('invalid_request', 'value: a credential is one line without control characters', {
      field: 'value',
    });
  }
  const box = await openSecretBox(dir, store, { create: true });
  const result = await store.secrets.put(
    o.tenantId,
    name,
    box.seal(o.tenantId, name, value),
    o.now.toISOString(),
  );
  return { tenant_id: o.tenantId, name, result, key_id: box.keyId, reference: `secret:${name}` };
}

export async function listSecrets(store: Store, tenantId: string): Promise<SecretListing[]> {
  await requireTenant(store, tenantId);
  return (await store.secrets.list(tenantId)).map((s) => ({
    name: s.name,
    reference: `secret:${s.name}`,
    key_id: s.keyId,
    created_at: s.createdAt,
    updated_at: s.updatedAt,
  }));
}

export async function deleteSecret(
  store: Store,
  o: { tenantId: string; name: string },
): Promise<{ tenant_id: string; name: string; deleted: true }> {
  await requireTenant(store, o.tenantId);
  if (!(await store.secrets.delete(o.tenantId, checkSlug('name', o.name)))) {
    throw new SvcError('not_found', `no secret ${o.name} in tenant ${o.tenantId}`, {
      remedy: `see svc secret list --tenant ${o.tenantId}`,
    });
  }
  return { tenant_id: o.tenantId, name: o.name, deleted: true };
}
