import { beforeAll, describe, expect, it } from 'vitest';
import type { ShadowBatch } from '../../../src/core/policy-shadow.js';
import type { PolicyDifference } from '../../../src/policy/policy-difference.js';
import { inputsOf } from '../../../src/policy/policy-inputs.js';
import type { Store } from '../../../src/store/ports.js';
import type { StoreHarness } from '../harness.js';
import { T0, T1, tenantWith } from './fixtures.js';

const inputs = (amountMicros: bigint) =>
  inputsOf(
    {
      actor: { id: 'bot', kind: 'agent', roles: ['refunds'], manager: 'alice' },
      capability: { id: 'refunds.issue', tier: 2, irreversible: false, custody: 'brokered' },
      action: 'write',
      taskId: 't1',
      amountMicros,
      route: 'action',
      nowEpochS: 1_770_000_000,
    },
    3,
  );

function difference(
  seq: number,
  amountMicros = 9_007_199_254_740_993n,
): ShadowBatch['differences'][number] & PolicyDifference {
  return {
    seq,
    intentId: `int_${seq}`,
    at: T1,
    inputs: inputs(amountMicros),
    current: { outcome: 'allowed', determining: ['refunds'] },
    candidate: { outcome: 'refused', code: 'policy_denied', determining: ['limit'] },
  };
}

const batch = (candidateId: string, o: Partial<ShadowBatch> = {}): ShadowBatch => ({
  tenantId: 'acme',
  candidateId,
  compared: 0,
  dropped: 0,
  uncompiled: 0,
  differences: [],
  ...o,
});

export function policyShadowContract(h: () => StoreHarness): void {
  describe('policy shadows', () => {
    let store: Store;
    beforeAll(async () => {
      store = await h().open();
      await tenantWith(store, 'acme', []);
    });

    it('a candidate starts with nothing compared; the probe names it and the registry version', async () => {
      expect(await store.shadows.probe('acme')).toMatchObject({ candidateId: null });
      const set = await store.shadows.set({
        tenantId: 'acme',
        candidateId: 'shd_1',
        text: 'permit (principal, action, resource);',
        source: 'c.cedar',
        setAt: T0,
      });
      expect(await store.shadows.get('acme')).toEqual(set);
      expect(set).toMatchObject({
        compared: 0,
        dropped: 0,
        uncompiled: 0,
        failure: null,
        failureRegistryVersion: null,
      });
      const probe = await store.shadows.probe('acme');
      expect(probe.candidateId).toBe('shd_1');
      expect(probe.registryVersion).toBeGreaterThanOrEqual(0);
      expect(await store.shadows.probe('nobody')).toEqual({ candidateId: null, registryVersion: 0 });
    });

    it('replicas add to one tally; a difference recorded twice stays once and reads back exactly', async () => {
      const replica = await h().reopen(store);
      const results = await Promise.all([
        store.shadows.record(
          batch('shd_1', { compared: 10, dropped: 1, differences: [difference(1), difference(2)] }),
        ),
        replica.shadows.record(batch('shd_1', { compared: 5, uncompiled: 2, differences: [difference(3)] })),
        replica.shadows.record(batch('shd_1', { compared: 0, differences: [difference(2)] })),
      ]);
      expect(results).toEqual([true, true, true]);
      expect(await store.shadows.get('acme')).toMatchObject({ compared: 15, dropped: 1, uncompiled: 2 });
      const { differences, unreadable } = await store.shadows.differences('acme', 'shd_1');
      expect(unreadable).toBe(0);
      expect(differences).toEqual([1, 2, 3].map((seq) => difference(seq)));
    });

    it('a failure to compile is kept with its registry version until a batch lifts it', async () => {
      await store.shadows.record(
        batch('shd_1', { failure: { message: 'unknown action refund', registryVersion: 7 } }),
      );
      expect(await store.shadows.get('acme')).toMatchObject({
        failure: 'unknown action refund',
        failureRegistryVersion: 7,
      });
      await store.shadows.record(batch('shd_1', { compared: 1 }));
      expect(await store.shadows.get('acme')).toMatchObject({ failure: 'unknown action refund' });
      await store.shadows.record(batch('shd_1', { failure: null }));
      expect(await store.shadows.get('acme')).toMatchObject({ failure: null, failureRegistryVersion: null });
    });

    it('a new candidate starts a new report; a batch for the old one writes nothing', async () => {
      await store.shadows.set({
        tenantId: 'acme',
        candidateId: 'shd_2',
        text: 'forbid (principal, action, resource);',
        source: 'd.cedar',
        setAt: T1,
      });
      expect(await store.shadows.get('acme')).toMatchObject({
        candidateId: 'shd_2',
        compared: 0,
        dropped: 0,
      });
      expect(await store.shadows.differences('acme', 'shd_1')).toEqual({ differences: [], unreadable: 0 });
      expect(await store.shadows.record(batch('shd_1', { compared: 3, differences: [difference(9)] }))).toBe(
        false,
      );
      expect(await store.shadows.get('acme')).toMatchObject({ compared: 0 });
      expect(await store.shadows.differences('acme', 'shd_1')).toEqual({ differences: [], unreadable: 0 });
    });

    it('clear says whether there was a candidate and forgets its differences', async () => {
      await store.shadows.record(batch('shd_2', { compared: 1, differences: [difference(4)] }));
      expect(await store.shadows.clear('acme')).toBe(true);
      expect(await store.shadows.clear('acme')).toBe(false);
      expect(await store.shadows.get('acme')).toBeUndefined();
      expect(await store.shadows.differences('acme', 'shd_2')).toEqual({ differences: [], unreadable: 0 });
      expect(await store.shadows.record(batch('shd_2', { compared: 1 }))).toBe(false);
    });
  });
}
