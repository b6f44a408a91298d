import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { fixture, type Fixture } from '../helpers/fixture.js';
import { addApprover } from '../helpers/approver.js';
import { capability, register } from '../helpers/registry.js';

const pay = (over: Record<string, unknown> = {}) => ({
  tenant_id: 'acme',
  actor_id: 'bot',
  capability: 'payments.send',
  action: 'write',
  task_id: 't1',
  effect_key_step: 'pay-1',
  amount_usd: 25,
  ...over,
});

describe('deferral, approval and resume (app.inject, real SQLite)', () => {
  let f: Fixture;
  let bot: string;
  let bob: string;
  const post = (url: string, payload: object, token: string) =>
    f.app.inject({ method: 'POST', url, headers: { authorization: `Bearer ${token}` }, payload });
  const decideApproval = (id: string, decision: 'approve' | 'deny', token = bob) =>
    post(`/v1/approvals/${id}/decision`, { decision }, token);

  beforeEach(async () => {
    f = await fixture();
    bot = await f.token('acme', 'bot');
    await addApprover(f.store, 'bob');
    bob = await f.token('acme', 'bob');
    await register(f.store, 'acme', {
      caps: [
        capability('acme', 'payments.send', {
          actions: ['write'],
          irreversible: true,
          tier: 2,
          costMicros: 10_000_000n,
        }),
      ],
      grants: [
        ['bot', 'payments.send'],
        ['bob', 'payments.send'],
      ],
      tasks: [{ id: 't1', sponsor: 'alice', budget: 100_000_000n }],
    });
  });
  afterEach(async () => f.close());

  it('defers an irreversible action, holds the key, and allows it once after approval', async () => {
    const deferred = await post('/v1/action', pay({ correlation_id: 'a' }), bot);
    expect(deferred.statusCode).toBe(202);
    const d = deferred.json();
    expect(d).toMatchObject({
      decision: 'deferred',
      amount_usd: 0,
      grant: null,
      approval: { status: 'pending' },
    });
    expect(d.remedy).toMatch(/\/v1\/action\/resume/);
    expect((await f.store.tasks.get('acme', 't1'))!.reservedMicros).toBe(0n);
    const approvalId = d.approval.approval_id as string;

    const dup = await post('/v1/action', pay(), bot);
    expect(dup.statusCode).toBe(409);
    expect(dup.json()).toMatchObject({ code: 'deferral_pending', intent_id: d.intent_id });

    const changed = await post('/v1/action/resume', pay({ amount_usd: 26 }), bot);
    expect(changed.statusCode).toBe(409);
    expect(changed.json().code).toBe('request_mismatch');

    const early = await post('/v1/action/resume', pay({ correlation_id: 'b' }), bot);
    expect(early.statusCode).toBe(202);
    expect(early.json()).toMatchObject({
      intent_id: d.intent_id,
      approval: { approval_id: approvalId, status: 'pending' },
    });

    expect((await decideApproval(approvalId, 'approve', bot)).statusCode).toBe(403);
    const approved = await decideApproval(approvalId, 'approve');
    expect(approved.statusCode).toBe(200);
    expect((await decideApproval(approvalId, 'deny')).statusCode).toBe(409);

    const allowed = await post('/v1/action/resume', pay(), bot);
    expect(allowed.statusCode).toBe(200);
    expect(allowed.json()).toMatchObject({
      decision: 'allowed',
      intent_id: d.intent_id,
      amount_usd: 25,
      approval: { approval_id: approvalId, status: 'consumed' },
    });
    expect(allowed.json().grant.grant_id).toMatch(/^grt_/);
    expect((await f.store.tasks.get('acme', 't1'))!.reservedMicros).toBe(25_000_000n);

    const twice = await post('/v1/action/resume', pay(), bot);
    expect(twice.statusCode).toBe(404);
    expect(twice.json().code).toBe('no_deferral');
    expect((await post('/v1/action', pay(), bot)).json().code).toBe('duplicate_effect');
  });

  it('past the default bound of 20 open approvals on a task, one more is 403 open_approvals_limit with its receipt', async () => {
    const opened: string[] = [];
    for (let i = 0; i < 20; i++) {
      const r = await post('/v1/action', pay({ effect_key_step: `bound-${i}` }), bot);
      expect(r.statusCode).toBe(202);
      opened.push(r.json().approval.approval_id as string);
    }
    const refused = await post('/v1/action', pay({ effect_key_step: 'bound-20' }), bot);
    expect(refused.statusCode).toBe(403);
    expect(refused.json()).toMatchObject({
      decision: 'refused',
      code: 'open_approvals_limit',
      approval: null,
      receipt: { sequence: 21 },
    });
    expect(refused.json().reason).toMatch(/at most 20 per task/);
    // claims nothing: once one approval is decided, the same step opens one
    expect((await decideApproval(opened[0]!, 'deny')).statusCode).toBe(200);
    const again = await post('/v1/action', pay({ effect_key_step: 'bound-20' }), bot);
    expect(again.statusCode).toBe(202);
    expect(again.json()).toMatchObject({ decision: 'deferred', approval: { status: 'pending' } });
  });

  it('polling a pending deferral answers with its standing receipt and adds nothing to the journal', async () => {
    const journalSize = () => {
      const snapshot = f.store.journalExports.snapshot('acme');
      try {
        return snapshot.size;
      } finally {
        snapshot.close();
      }
    };
    const d = (await post('/v1/action', pay({ effect_key_step: 'poll' }), bot)).json();
    const before = journalSize();
    for (let i = 0; i < 5; i++) {
      const poll = await post('/v1/action/resume', pay({ effect_key_step: 'poll' }), bot);
      expect(poll.statusCode).toBe(202);
      expect(poll.json()).toMatchObject({
        decision: 'deferred',
        intent_id: d.intent_id,
        approval: { approval_id: d.approval.approval_id, status: 'pending' },
        receipt: { receipt_id: d.receipt.receipt_id, sequence: d.receipt.sequence },
      });
      expect(poll.json().reason).toMatch(/still pending/);
    }
    expect(journalSize()).toBe(before);
    // A change is still a decision, and sealed as one.
    await decideApproval(d.approval.approval_id, 'approve');
    const allowed = await post('/v1/action/resume', pay({ effect_key_step: 'poll' }), bot);
    expect(allowed.json().decision).toBe('allowed');
    expect(journalSize()).toBeGreaterThan(before);
  });

  it('resuming an already-allowed request is 404 naming the allowed intent, to its own actor only', async () => {
    const d = (await post('/v1/action', pay({ effect_key_step: 'done' }), bot)).json();
    await decideApproval(d.approval.approval_id, 'approve');
    expect((await post('/v1/action/resume', pay({ effect_key_step: 'done' }), bot)).statusCode).toBe(200);
    const again = await post('/v1/action/resume', pay({ effect_key_step: 'done' }), bot);
    expect(again.statusCode).toBe(404);
    expect(again.json()).toEqual({
      code: 'no_deferral',
      reason: `effect key t1/done was already allowed as intent ${d.intent_id}: there is no deferral left to resume`,
      remedy: expect.stringContaining('`svc receipts list --task t1`'),
      intent_id: d.intent_id,
      outcome: 'allowed',
    });
    // Another actor of the tenant on the same key learns nothing about the intent.
    const other = await post('/v1/action/resume', pay({ actor_id: 'bob', effect_key_step: 'done' }), bob);
    expect(other.statusCode).toBe(404);
    expect(other.json()).not.toHaveProperty('intent_id');
    expect(other.json().remedy).toMatch(/svc receipts list --task t1/);
    // A deferral resumed on the other route says where it stands.
    const b = (await post('/v1/action', pay({ effect_key_step: 'route' }), bot)).json();
    const wrong = await post('/v1/brokered/resume', pay({ effect_key_step: 'route' }), bot);
    expect(wrong.statusCode).toBe(404);
    expect(wrong.json()).toMatchObject({
      intent_id: b.intent_id,
      remedy: expect.stringMatching(/\/v1\/action\/resume/),
    });
  });

  it('a denial refuses on resume and frees the key; a new request asks anew', async () => {
    const d = (await post('/v1/action', pay({ effect_key_step: 'pay-2' }), bot)).json();
    expect((await decideApproval(d.approval.approval_id, 'deny')).statusCode).toBe(200);
    const refused = await post('/v1/action/resume', pay({ effect_key_step: 'pay-2' }), bot);
    expect(refused.statusCode).toBe(403);
    expect(refused.json()).toMatchObject({
      decision: 'refused',
      code: 'approval_denied',
      intent_id: d.intent_id,
    });
    const again = await post('/v1/action', pay({ effect_key_step: 'pay-2' }), bot);
    expect(again.statusCode).toBe(202);
    expect(again.json().approval.approval_id).not.toBe(d.approval.approval_id);
  });

  it('an approval expires after 24 hours', async () => {
    const d = (await post('/v1/action', pay({ effect_key_step: 'pay-3' }), bot)).json();
    f.now.value = new Date(f.now.value.getTime() + 24 * 3_600_000);
    const r = await post('/v1/action/resume', pay({ effect_key_step: 'pay-3' }), bot);
    expect(r.statusCode).toBe(403);
    expect(r.json().code).toBe('approval_expired');
    expect((await decideApproval(d.approval.approval_id, 'approve')).statusCode).toBe(409);
  });

  it('the requester never approves its own request, even with the approver role', async () => {
    const d = (await post('/v1/action', pay({ actor_id: 'bob', effect_key_step: 'pay-4' }), bob)).json();
    expect(d.decision).toBe('deferred');
    const self = await decideApproval(d.approval.approval_id, 'approve', bob);
    expect(self.statusCode).toBe(403);
  });

  it('a resume with no standing deferral is 404; the budget is rechecked on resume', async () => {
    expect((await post('/v1/action/resume', pay({ effect_key_step: 'never' }), bot)).statusCode).toBe(404);
    const d = (await post('/v1/action', pay({ effect_key_step: 'pay-5', amount_usd: 90 }), bot)).json();
    await decideApproval(d.approval.approval_id, 'approve');
    await f.store.tasks.setBudget('acme', 't1', 50_000_000n);
    const r = await post('/v1/action/resume', pay({ effect_key_step: 'pay-5', amount_usd: 90 }), bot);
    expect(r.json()).toMatchObject({ decision: 'refused', code: 'budget_exceeded' });
  });
});
