import { describe, expect, it } from 'vitest';
import type { Actor } from '../../../src/core/actor.js';
import { admits } from '../../../src/core/constraints.js';
import { PolicyCache } from '../../../src/daemon/policy-cache.js';
import { inputsOf } from '../../../src/policy/policy-inputs.js';
import type { Sealed } from '../../../src/store/decision-ports.js';
import type { Store } from '../../../src/store/ports.js';
import type { RecordedDecision } from '../../../src/store/replay-ports.js';
import type { StoreHarness } from '../harness.js';
import { request } from '../../helpers/pg-seed.js';
import { capabilityRecord, taskRecord } from '../../helpers/registry-records.js';
import { human, T0, T1 } from './fixtures.js';

type SealedDecision = Extract<Sealed, { kind: 'sealed' }>;

const bot: Actor = human('acme', 'bot', { kind: 'agent', roles: ['approver'], managerId: 'alice' });
const V1 = 'permit (principal, action, resource) when { principal.roles.contains("approver") };';
const V2 =
  '@id("clerks-small")\npermit (principal, action, resource) when { context.amount_micros <= 5000000 };';

async function provision(store: Store): Promise<void> {
  await store.tenants.create({
    tenant: { id: 'acme', createdAt: T0 },
    signingKey: { tenantId: 'acme', keyId: 'k1', publicKey: 'cHVibGlj', algorithm: 'ed25519', createdAt: T0 },
    admin: human('acme', 'alice', { roles: ['administrator'] }),
  });
  await store.actors.add(bot);
  await store.capabilities.put(capabilityRecord('acme', 'crm.notes', T0, { tier: 1, actions: ['write'] }));
  await store.capabilities.put(capabilityRecord('acme', 'crm.secret', T0, { tier: 1, actions: ['write'] }));
  await store.permissions.grant({ tenantId: 'acme', actorId: 'bot', capability: 'crm.notes', grantedAt: T0 });
  await store.tasks.create(taskRecord('acme', 'keys', T0, { budgetMicros: 10n ** 12n }));
}

const all = async (it: AsyncIterable<RecordedDecision[]>): Promise<RecordedDecision[]> => {
  const out: RecordedDecision[] = [];
  for await (const page of it) out.push(...page);
  return out;
};

/** DecisionStore (what a decision records of its policy step), Receipts (policy_version), RecordedDecisions. */
export function decisionInputsContract(h: () => StoreHarness): void {
  describe('decision inputs', () => {
    it('record the policy version and the step’s inputs with each decision that reached the policy, read back by a read-only reader', async () => {
      const store = await h().open();
      await provision(store);
      const rules = { policy: new PolicyCache(), constraints: admits };
      const decide = (req: Parameters<Store['decisions']['decide']>[0], caller = bot) =>
        store.decisions.decide(req, caller, 'new', rules) as Promise<SealedDecision>;

      const none = await decide(request('crm.notes', 'keys', 'n0', 1));
      expect(none).toMatchObject({ outcome: 'refused', code: 'no_policy' });
      await store.policies.set('acme', V1, T0);
      const v1 = await decide(request('crm.notes', 'keys', 'a1', 2));
      const notPermitted = await decide(request('crm.secret', 'keys', 'a2'));
      expect([v1.outcome, notPermitted.code]).toEqual(['allowed', 'not_permitted']);
      await store.policies.set('acme', V2, T1);
      // The same actor and capability again, through a second store on the same database: the
      // bodies stored once are referred to again, not stored twice.
      const other = await h().reopen(store);
      const v2 = (await other.decisions.decide(request('crm.notes', 'keys', 'a3', 9), bot, 'new', {
        policy: new PolicyCache(),
        constraints: admits,
      })) as SealedDecision;
      expect(v2).toMatchObject({ outcome: 'refused', code: 'policy_denied' });
      const promoted: Actor = { ...bot, roles: ['approver', 'manager'] };
      const v2b = await decide(request('crm.notes', 'keys', 'a4', 1), promoted);
      expect(v2b.outcome).toBe('allowed');

      const alice = human('acme', 'alice', { roles: ['administrator'] });
      const versions = [];
      for (const d of [none, v1, notPermitted, v2, v2b])
        versions.push((await store.receipts.get(alice, d.receipt.receiptId))?.policy_version);
      expect(versions).toEqual([0, 1, null, 2, 2]);
      const page = await store.receipts.list(alice, { limit: 10 }, {});
      expect(page.items.map((r) => r.policy_version)).toEqual([0, 1, null, 2, 2]);

      const recorded = await h().recorded(store);
      const rows = await all(recorded.decisions('acme', {}));
      expect(rows.map((r) => [r.sequence, r.inputs?.policyVersion ?? null, r.code])).toEqual([
        [1, 0, null],
        [2, 1, null],
        [3, null, 'not_permitted'],
        [4, 2, null],
        [5, 2, null],
      ]);
      const [r0, r1, , r3, r4] = rows;
      expect(r1!.inputs).toMatchObject({
        action: 'write',
        amountMicros: 2_000_000n,
        brokered: false,
        approvalTier: expect.any(Number),
        allow: true,
        noPolicy: false,
      });
      expect(r0!.inputs).toMatchObject({ allow: false, noPolicy: true });
      expect(r3!.inputs).toMatchObject({ allow: false, noPolicy: false, amountMicros: 9_000_000n });
      expect(r1!.taskId).toBe('keys');
      expect(r1!.intentId).toBe(v1.intentId);
      // same actor attributes: one body; the promoted actor: another
      expect(r3!.inputs!.actor).toBe(r1!.inputs!.actor);
      expect(r4!.inputs!.actor).not.toBe(r1!.inputs!.actor);
      expect(r3!.inputs!.capability).toBe(r1!.inputs!.capability);
      const bodies = await recorded.snapshots('acme');
      expect(JSON.parse(bodies.get(r1!.inputs!.actor)!)).toEqual({
        id: 'bot',
        kind: 'agent',
        manager: 'alice',
        roles: ['approver'],
      });
      expect(JSON.parse(bodies.get(r4!.inputs!.actor)!)).toMatchObject({ roles: ['approver', 'manager'] });
      expect(JSON.parse(bodies.get(r4!.inputs!.determining)!)).toEqual(['clerks-small']);
      expect(JSON.parse(bodies.get(r1!.inputs!.capability)!)).toEqual({
        custody: expect.any(String),
        id: 'crm.notes',
        irreversible: false,
        tier: 1,
      });
      // actor x2, capability, determining [] and ['policy0'] and ['clerks-small']: each once
      expect(new Set(bodies.values()).size).toBe(bodies.size);
      expect(bodies.size).toBe(6);

      expect(
        (await all(recorded.decisions('acme', { fromSeq: 2, toSeq: 4 }))).map((r) => r.sequence),
      ).toEqual([2, 3, 4]);
      expect(await recorded.verbs('acme')).toContain('write');

      // A shadow report's differences carry the inputs too: one for decisions 2 and 3.
      await store.shadows.set({
        tenantId: 'acme',
        candidateId: 'shd_r',
        text: 'permit (principal, action, resource);',
        source: 'c.cedar',
        setAt: T0,
      });
      const shadowed = (seq: number) => ({
        seq,
        intentId: `int_${seq}`,
        at: T1,
        inputs: inputsOf(
          {
            actor: { id: 'bot', kind: 'agent', roles: [], manager: 'alice' },
            capability: { id: 'crm.notes', tier: 1, irreversible: false, custody: 'grant' },
            action: 'write',
            taskId: 't1',
            amountMicros: 1n,
            route: 'action',
            nowEpochS: 1_770_000_000,
          },
          3,
        ),
        current: { outcome: 'allowed' as const, determining: [] },
        candidate: { outcome: 'refused' as const, code: 'policy_denied' as const, determining: [] },
      });
      await store.shadows.record({
        tenantId: 'acme',
        candidateId: 'shd_r',
        compared: 2,
        dropped: 0,
        uncompiled: 0,
        differences: [shadowed(2), shadowed(3)],
      });
      // A redaction erases what the redacted decision was evaluated with: it reads as unrecorded,
      // and the shadow report no longer holds it.
      await store.redactions.redact({
        tenantId: 'acme',
        from: 2,
        to: 2,
        reason: 'erasure request',
        authorisedBy: 'alice',
        at: T1,
      });
      const after = await all(recorded.decisions('acme', { toSeq: 5 }));
      expect(after.map((r) => r.inputs?.policyVersion ?? null)).toEqual([0, null, null, 2, 2]);
      expect((await store.receipts.get(alice, v1.receipt.receiptId))?.policy_version).toBeNull();
      const kept = await store.shadows.differences('acme', 'shd_r');
      expect([kept.differences.map((d) => d.seq), kept.unreadable]).toEqual([[3], 0]);
      expect(await recorded.tenantExists('acme')).toBe(true);
      expect(await recorded.tenantExists('nobody')).toBe(false);
    });
  });
}
