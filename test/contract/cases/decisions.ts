import { createHash, generateKeyPairSync, sign } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import type { Actor } from '../../../src/core/actor.js';
import { admits } from '../../../src/core/constraints.js';
import { PolicyCache } from '../../../src/daemon/policy-cache.js';
import { decodeHex } from '../../../src/evidence/encoding.js';
import { inclusionProof } from '../../../src/evidence/merkle-tree.js';
import { sha256 } from '../../../src/evidence/node-crypto.js';
import type { Sealed } from '../../../src/store/decision-ports.js';
import type { Store } from '../../../src/store/ports.js';
import type { StoreHarness } from '../harness.js';
import type { DecisionRequest } from '../../../src/core/decision/request.js';
import { request } from '../../helpers/pg-seed.js';
import { capabilityRecord, taskRecord } from '../../helpers/registry-records.js';
import { human, T0 } from './fixtures.js';

type SealedDecision = Extract<Sealed, { kind: 'sealed' }>;

const keys = generateKeyPairSync('ed25519');
const publicKey = keys.publicKey.export({ format: 'der', type: 'spki' }).subarray(-32).toString('base64');
const signer = { keyId: 'k1', sign: (m: Uint8Array) => new Uint8Array(sign(null, m, keys.privateKey)) };
const bot: Actor = human('acme', 'bot', { kind: 'agent', roles: [], managerId: 'alice' });

/** Tenant acme: alice (administrator, approver), agent bot, crm.notes (free), crm.paid (0.01 USD), payments.send (tier 4, irreversible). */
async function provision(store: Store): Promise<void> {
  await store.tenants.create({
    tenant: { id: 'acme', createdAt: T0 },
    signingKey: { tenantId: 'acme', keyId: 'k1', publicKey, algorithm: 'ed25519', createdAt: T0 },
    admin: human('acme', 'alice', { roles: ['administrator', 'approver'] }),
  });
  await store.actors.add(bot);
  for (const [name, tier, irreversible, costMicros] of [
    ['crm.notes', 1, false, 0n],
    ['crm.paid', 1, false, 10_000n],
    ['payments.send', 4, true, 1_000_000n],
  ] as const) {
    await store.capabilities.put(
      capabilityRecord('acme', name, T0, { tier, irreversible, actions: ['write'], costMicros }),
    );
    await store.permissions.grant({ tenantId: 'acme', actorId: 'bot', capability: name, grantedAt: T0 });
  }
  await store.policies.set('acme', 'permit (principal, action, resource);', T0);
  for (const [id, budgetMicros] of [
    ['keys', 10n ** 12n],
    ['small', 100_000n],
  ] as const) {
    await store.tasks.create(taskRecord('acme', id, T0, { budgetMicros }));
  }
}

/** DecisionStore, Approvals (decide), AnchorRepo, ProofRepo, JournalExports, Redactions, ExecutionStore. */
export function decisionContract(h: () => StoreHarness): void {
  const rules = { policy: new PolicyCache(), constraints: admits };

  describe('decisions and the journal', () => {
    it('allows, refuses on budget and on a claimed key, and journals each with contiguous sequences', async () => {
      const store = await h().open();
      await provision(store);
      const decide = (req: DecisionRequest) => store.decisions.decide(req, bot, 'new', rules);
      const first = (await decide(request('crm.paid', 'small', 's1'))) as SealedDecision;
      expect(first).toMatchObject({ kind: 'sealed', outcome: 'allowed', amountMicros: 10_000n });
      expect(first.receipt.sequence).toBe(1);
      expect(first.grant?.grantId).toMatch(/^grt_/);
      expect(await decide(request('crm.paid', 'small', 's1'))).toMatchObject({
        kind: 'conflict',
        code: 'duplicate_effect',
        intentId: first.intentId,
      });
      const answers = [];
      for (let i = 2; i <= 12; i++)
        answers.push((await decide(request('crm.paid', 'small', `s${i}`))) as SealedDecision);
      expect(answers.filter((a) => a.outcome === 'allowed')).toHaveLength(9); // 10 x 0.01 USD = the budget
      expect(answers.slice(9).map((a) => a.code)).toEqual(['budget_exceeded', 'budget_exceeded']);
      expect([first, ...answers].map((a) => a.receipt.sequence)).toEqual(
        Array.from({ length: 12 }, (_, i) => i + 1),
      );
      expect((await store.tasks.get('acme', 'small'))?.reservedMicros).toBe(100_000n);
    });

    it('two stores on one database (two processes, two replicas) allow each effect key once', async () => {
      const a = await h().open();
      await provision(a);
      const b = await h().reopen(a);
      const answers = await Promise.all(
        Array.from({ length: 10 }, (_, k) =>
          [a, b, a, b].map((s) =>
            s.decisions.decide(request('crm.notes', 'keys', `k${k}`), bot, 'new', rules),
          ),
        ).flat(),
      );
      for (let k = 0; k < 10; k++) {
        const four = answers.slice(k * 4, k * 4 + 4);
        expect(four.filter((s) => s.kind === 'sealed' && s.outcome === 'allowed')).toHaveLength(1);
        expect(four.filter((s) => s.kind === 'conflict')).toHaveLength(3);
      }
      const sequences = answers
        .filter((s): s is SealedDecision => s.kind === 'sealed')
        .map((s) => s.receipt.sequence)
        .sort((x, y) => x - y);
      expect(sequences).toEqual(Array.from({ length: 10 }, (_, i) => i + 1));
    });

    it('a deferral waits for its approval, which is decided once and consumed once', async () => {
      const store = await h().open();
      await provision(store);
      const req = request('payments.send', 'keys', 'pay', 2);
      const deferred = (await store.decisions.decide(req, bot, 'new', rules)) as SealedDecision;
      expect(deferred).toMatchObject({ outcome: 'deferred', approval: { status: 'pending' } });
      const standing = (await store.decisions.decide(req, bot, 'resume', rules)) as SealedDecision;
      expect(standing.receipt).toEqual(deferred.receipt);
      const approvalId = deferred.approval!.approvalId;
      const decided = await store.approvals.decide({
        tenantId: 'acme',
        approvalId,
        deciderId: 'alice',
        decision: 'approve',
        note: 'ok',
        channel: 'api',
        at: new Date(),
      });
      expect(decided).toMatchObject({ approval: { status: 'approved', decidedBy: 'alice' }, sequence: 2 });
      await expect(
        store.approvals.decide({
          tenantId: 'acme',
          approvalId,
          deciderId: 'alice',
          decision: 'deny',
          note: null,
          channel: 'api',
          at: new Date(),
        }),
      ).rejects.toMatchObject({ code: 'already_decided' });
      const allowed = await store.decisions.decide(req, bot, 'resume', rules);
      expect(allowed).toMatchObject({ outcome: 'allowed', approval: { approvalId, status: 'consumed' } });
      expect(await store.decisions.decide(req, bot, 'resume', rules)).toMatchObject({ kind: 'no_deferral' });
    });
  });

  describe('pending approvals for the metrics', () => {
    it('counts pending, unexpired approvals per tenant; a decided or expired one is not counted', async () => {
      const store = await h().open();
      await provision(store);
      expect(await store.approvals.pendingCounts(new Date())).toEqual([]);
      const first = (await store.decisions.decide(
        request('payments.send', 'keys', 'pay-1', 2),
        bot,
        'new',
        rules,
      )) as SealedDecision;
      await store.decisions.decide(request('payments.send', 'keys', 'pay-2', 2), bot, 'new', rules);
      expect(await store.approvals.pendingCounts(new Date())).toEqual([{ tenantId: 'acme', count: 2 }]);
      expect(await store.approvals.pendingCounts(new Date(Date.now() + 400 * 86_400_000))).toEqual([]);
      await store.approvals.decide({
        tenantId: 'acme',
        approvalId: first.approval!.approvalId,
        deciderId: 'alice',
        decision: 'deny',
        note: null,
        channel: 'api',
        at: new Date(),
      });
      expect(await store.approvals.pendingCounts(new Date())).toEqual([{ tenantId: 'acme', count: 1 }]);
    });
  });

  describe('the bound on open approvals', () => {
    const bounded = (perActor: number, perTask: number) => ({
      ...rules,
      openApprovals: { perActor, perTask },
    });
    const pay = (task: string, step: string) => request('payments.send', task, step, 2);

    it('refuses one approval more than a task may hold open, sealed and claiming nothing; a decided one frees its slot', async () => {
      const store = await h().open();
      await provision(store);
      const r = bounded(10, 2);
      const decide = (req: DecisionRequest) => store.decisions.decide(req, bot, 'new', r);
      const opened = [
        (await decide(pay('keys', 'p1'))) as SealedDecision,
        (await decide(pay('keys', 'p2'))) as SealedDecision,
      ];
      expect(opened.map((o) => o.outcome)).toEqual(['deferred', 'deferred']);
      const refused = (await decide(pay('keys', 'p3'))) as SealedDecision;
      expect(refused).toMatchObject({
        kind: 'sealed',
        outcome: 'refused',
        code: 'open_approvals_limit',
        amountMicros: 0n,
      });
      expect(refused.reason).toMatch(/task keys already has 2 open approvals \(at most 2 per task\)/);
      expect(refused.remedy).toMatch(/svc approvals list --status pending/);
      expect(refused.approval).toBeUndefined();
      // sealed like every refusal: the next journal record, code and all
      expect(refused.receipt.sequence).toBe(3);
      expect(refused.receipt.record).toMatchObject({
        outcome: 'refused',
        code: 'open_approvals_limit',
        approval_id: null,
      });
      // an earlier check still decides first: over budget is budget_exceeded, bound or not
      expect(await decide(request('payments.send', 'small', 'p4', 2))).toMatchObject({
        code: 'budget_exceeded',
      });
      // nothing was reserved or claimed: once an approval is decided the same step is deferred
      expect((await store.tasks.get('acme', 'keys'))?.reservedMicros).toBe(0n);
      expect(await decide(pay('keys', 'p3'))).toMatchObject({
        outcome: 'refused',
        code: 'open_approvals_limit',
      });
      await store.approvals.decide({
        tenantId: 'acme',
        approvalId: opened[0]!.approval!.approvalId,
        deciderId: 'alice',
        decision: 'deny',
        note: null,
        channel: 'api',
        at: new Date(),
      });
      expect(await decide(pay('keys', 'p3'))).toMatchObject({
        outcome: 'deferred',
        approval: { status: 'pending' },
      });
    });

    it("counts the requester's open approvals across tasks, and not the expired ones", async () => {
      let now = Date.now();
      const store = await h().open({ clock: () => new Date(now) });
      await provision(store);
      const r = bounded(2, 10);
      const decide = (req: DecisionRequest) => store.decisions.decide(req, bot, 'new', r);
      expect(await decide(pay('keys', 'a1'))).toMatchObject({ outcome: 'deferred' });
      await store.tasks.create({
        tenantId: 'acme',
        id: 'other',
        title: null,
        sponsorId: 'alice',
        status: 'active',
        parentId: null,
        rootId: 'other',
        budgetMicros: 10n ** 12n,
        reservedMicros: 0n,
        actors: ['bot'],
        createdAt: T0,
        closedAt: null,
      });
      expect(await decide(pay('other', 'a2'))).toMatchObject({ outcome: 'deferred' });
      const refused = (await decide(pay('other', 'a3'))) as SealedDecision;
      expect(refused).toMatchObject({ outcome: 'refused', code: 'open_approvals_limit' });
      expect(refused.reason).toMatch(
        /bot already has 2 open approvals in this tenant \(at most 2 per requester\)/,
      );
      // a day later both have expired: they no longer stand open
      now += 24 * 3_600_000 + 1000;
      expect(await decide(pay('other', 'a3'))).toMatchObject({ outcome: 'deferred' });
    });

    it('requests racing through two stores on one database never open more than the bound', async () => {
      const a = await h().open();
      await provision(a);
      const b = await h().reopen(a);
      const r = bounded(50, 5);
      const answers = (await Promise.all(
        Array.from({ length: 16 }, (_, k) =>
          (k % 2 === 0 ? a : b).decisions.decide(pay('keys', `race${k}`), bot, 'new', r),
        ),
      )) as SealedDecision[];
      expect(answers.filter((s) => s.outcome === 'deferred')).toHaveLength(5);
      expect(answers.filter((s) => s.outcome === 'refused').map((s) => s.code)).toEqual(
        Array.from({ length: 11 }, () => 'open_approvals_limit'),
      );
      const opened = answers.filter((s) => s.outcome === 'deferred').map((s) => s.approval?.approvalId);
      expect(new Set(opened).size).toBe(5);
    });
  });

  describe('approvals as their readers see them', () => {
    it('keep the body their digest binds, and list newest first by page, requester and capability', async () => {
      const store = await h().open();
      await provision(store);
      const opened: string[] = [];
      for (let i = 0; i < 5; i++) {
        const params = i === 0 ? { amount_cents: 99999999, destination: 'acct-mallory' } : undefined;
        const amount = i % 2 === 0 ? 0.01 : undefined;
        const req = request('payments.send', 'keys', `ap-${i}`, amount, params);
        const d = (await store.decisions.decide(req, bot, 'new', rules)) as SealedDecision;
        opened.push(d.approval!.approvalId);
        // created_at orders the list; the clock of the decision is the real one here
        await new Promise((r) => setTimeout(r, 5));
      }
      const alice = human('acme', 'alice', { roles: ['administrator', 'approver'] });
      const first = (await store.approvals.get(alice, opened[0]!, new Date()))!;
      expect(first.amountSource).toBe('requester_estimate');
      expect(JSON.parse(first.request!)).toMatchObject({
        amount_usd: 0.01,
        params: { amount_cents: 99999999, destination: 'acct-mallory' },
      });
      expect(createHash('sha256').update(first.request!).digest('hex')).toBe(first.requestDigest);
      expect((await store.approvals.get(alice, opened[1]!, new Date()))!.amountSource).toBe(
        'capability_default',
      );

      const newest = [...opened].reverse();
      const seen: string[] = [];
      let after: { createdAt: string; id: string } | undefined;
      do {
        const page = await store.approvals.list(alice, { limit: 2, after }, { order: 'newest' }, new Date());
        seen.push(...page.items.map((a) => a.id));
        after = page.next;
      } while (after !== undefined);
      expect(seen).toEqual(newest);
      const ids = async (filter: Parameters<Store['approvals']['list']>[2]) =>
        (await store.approvals.list(alice, { limit: 50 }, filter, new Date())).items.map((a) => a.id);
      expect(await ids({})).toEqual(opened);
      expect(await ids({ order: 'newest', requesterId: 'bot' })).toEqual(newest);
      expect(await ids({ requesterId: 'alice' })).toEqual([]);
      expect(await ids({ capability: 'payments.send', status: 'pending' })).toEqual(opened);
      expect(await ids({ capability: 'crm.paid' })).toEqual([]);
    });
  });

  describe('anchors, proofs, exports and redactions', () => {
    it('signs one head per size, proves inclusion, exports a stable snapshot and redacts in place', async () => {
      const store = await h().open();
      await provision(store);
      for (let i = 0; i < 7; i++)
        await store.decisions.decide(request('crm.notes', 'keys', `e${i}`), bot, 'new', rules);
      const at = new Date().toISOString();
      const first = await store.anchors.signCurrent('acme', signer, at);
      expect(first).toMatchObject({ created: true, anchor: { head: { tree_size: 7 }, keyId: 'k1' } });
      expect(await store.anchors.signCurrent('acme', signer, at)).toMatchObject({ created: false });
      expect((await store.anchors.latest('acme'))?.head.root_hash).toBe(first.anchor.head.root_hash);
      expect(await store.anchors.backlog()).toEqual([
        { tenantId: 'acme', size: 7, anchoredSize: 7, firstUnanchoredAt: null },
      ]);

      const snapshot = await store.journalExports.snapshot('acme');
      const leaves: Uint8Array[] = [];
      try {
        expect(snapshot.size).toBe(7);
        await store.decisions.decide(request('crm.notes', 'keys', 'late'), bot, 'new', rules);
        expect(await snapshot.anchorCount(7)).toBe(1);
        expect(await snapshot.anchorKeyIds(7)).toEqual(['k1']);
        const types: string[] = [];
        for await (const page of snapshot.items(7, {})) {
          for (const line of page) {
            types.push(line.type);
            if (line.type === 'entry') leaves.push(decodeHex(line.leaf)!);
          }
        }
        expect(types).toEqual([...Array<string>(7).fill('entry'), 'anchor']);
      } finally {
        await snapshot.close();
      }
      expect(await store.proofs.inclusion('acme', 3, 7)).toEqual(inclusionProof(leaves, 2, sha256));
      await expect(store.proofs.inclusion('acme', 1, 99)).rejects.toMatchObject({ kind: 'not_found' });

      const redaction = await store.redactions.redact({
        tenantId: 'acme',
        from: 1,
        to: 2,
        reason: 'retention',
        authorisedBy: 'alice',
        at: new Date().toISOString(),
      });
      expect(redaction.sequence).toBe(9);
      await expect(
        store.redactions.redact({ tenantId: 'acme', from: 2, to: 3, reason: 'r', authorisedBy: 'alice', at }),
      ).rejects.toMatchObject({ kind: 'conflict' });
      const after = await store.journalExports.snapshot('acme');
      try {
        expect(await after.redactedPast(7)).toBe(true);
      } finally {
        await after.close();
      }
      // a fresh store has no interrupted calls of its own
      expect(await store.executions.markInterrupted()).toBe(0);
    });
  });
}
