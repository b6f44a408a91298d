import { describe, expect, it } from 'vitest';
import {
  keyRotation,
  type KeyRotationOps,
  type NewSigningKey,
  type SigningKeyRecord,
} from '../../../src/core/signing-key.js';
import { runSync } from '../../../src/core/use-case.js';
import { beforeOp, thrown } from '../../helpers/op-race.js';

const T0 = '2026-01-01T00:00:00.000Z';
const T1 = '2026-02-01T00:00:00.000Z';

const key = (keyId: string, createdAt = T0): NewSigningKey => ({
  tenantId: 'acme',
  keyId,
  publicKey: 'cHVibGlj',
  algorithm: 'ed25519',
  createdAt,
});

/** One tenant's keys in memory; retiring a key changes it only while it is active. */
function keyring(first: boolean) {
  const keys: SigningKeyRecord[] = first ? [{ ...key('k1'), status: 'active', retiredAt: null }] : [];
  const ops: KeyRotationOps = {
    activeKey: () => keys.find((k) => k.status === 'active')?.keyId,
    retireKey: (_t, keyId, at) => {
      const k = keys.find((x) => x.keyId === keyId && x.status === 'active');
      if (!k) return 0;
      Object.assign(k, { status: 'retired', retiredAt: at });
      return 1;
    },
    insertKey: (k) => void keys.push(k),
  };
  return { keys, ops };
}

describe('rotating a signing key (core/signing-key.ts)', () => {
  it('retires the active key at the new key’s time and makes the new one active', () => {
    const r = keyring(true);
    const next = runSync(keyRotation(key('k2', T1)), r.ops);
    expect(next).toEqual({ ...key('k2', T1), status: 'active', retiredAt: null });
    expect(r.keys).toEqual([
      { ...key('k1'), status: 'retired', retiredAt: T1 },
      { ...key('k2', T1), status: 'active', retiredAt: null },
    ]);
  });

  it('refuses a tenant without an active key, and writes nothing', async () => {
    const r = keyring(false);
    expect(await thrown(() => runSync(keyRotation(key('k2', T1)), r.ops))).toMatchObject({
      code: 'not_found',
      reason: 'tenant acme has no active signing key',
    });
    expect(r.keys).toEqual([]);
  });

  it('fails with a coded conflict when the key was retired before its guarded write, and adds none', async () => {
    const r = keyring(true);
    // another rotation retired k1 after this one read it as active
    const ops = beforeOp(r.ops, 'retireKey', () =>
      Object.assign(r.keys[0]!, { status: 'retired', retiredAt: T0 }),
    );
    expect(await thrown(() => runSync(keyRotation(key('k2', T1)), ops))).toMatchObject({
      code: 'conflict',
      reason:
        'the retirement of key k1 changed 0 rows, not one: the state it was decided on no longer holds; retry',
    });
    expect(r.keys).toHaveLength(1);
  });
});
