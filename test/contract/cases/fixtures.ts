import type { Actor } from '../../../src/core/actor.js';
import type { NewTenant, Store, TokenRecord } from '../../../src/store/ports.js';

export const T0 = '2026-03-01T10:00:00.000Z';
export const T1 = '2026-03-01T11:00:00.000Z';
export const T2 = '2026-03-01T12:00:00.000Z';
export const EXPIRES = '2027-03-01T10:00:00.000Z';

export function human(tenantId: string, id: string, more: Partial<Actor> = {}): Actor {
  return {
    tenantId,
    id,
    kind: 'human',
    roles: ['administrator'],
    managerId: null,
    certSubject: null,
    displayName: null,
    createdAt: T0,
    ...more,
  };
}

export function token(
  tenantId: string,
  actorId: string,
  id: string,
  more: Partial<TokenRecord> = {},
): TokenRecord {
  return {
    id,
    tenantId,
    actorId,
    secretHash: new Uint8Array(32).map((_, i) => (i * 7 + id.length) % 256),
    label: null,
    createdAt: T0,
    expiresAt: EXPIRES,
    revokedAt: null,
    ...more,
  };
}

/** A tenant with its first key, its administrator `admin` and that administrator's token `<tenant>-tok`. */
export function newTenant(id: string, o: { admin?: string; keyId?: string } = {}): NewTenant {
  const admin = o.admin ?? 'alice';
  return {
    tenant: { id, createdAt: T0 },
    signingKey: {
      tenantId: id,
      keyId: o.keyId ?? `${id}-k1`,
      publicKey: 'cHVibGlj',
      algorithm: 'ed25519',
      createdAt: T0,
    },
    admin: human(id, admin),
    adminToken: token(id, admin, `${id}-tok`),
  };
}

/**
 * A tenant with no administrator and then `actors`, provisioned as `svc tenant create` and
 * `svc actor add` do: through the tenant and actor ports, never by rows.
 */
export async function tenantWith(store: Store, id: string, actors: Actor[], createdAt = T0): Promise<void> {
  await store.tenants.create({
    tenant: { id, createdAt },
    signingKey: { tenantId: id, keyId: `${id}-k1`, publicKey: 'cHVibGlj', algorithm: 'ed25519', createdAt },
  });
  for (const a of actors) await store.actors.add(a);
}
