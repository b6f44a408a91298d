import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { addActor } from '../../src/provisioning/actor.js';
import { fixture, type Fixture } from '../helpers/fixture.js';
import { as, cast, Seed, type Cast } from '../helpers/seed.js';

describe('approvals (app.inject, real SQLite)', () => {
  let f: Fixture;
  let t: Cast;
  let seed: Seed;
  let pay: string;
  let read: string;
  let brief: string;
  let foreign: string;

  const decide = (token: string, id: string, body: unknown) =>
    as(f, token, `/v1/approvals/${id}/decision`, { method: 'POST', body });
  const ids = async (token: string, query = '') => {
    const r = await as(f, token, `/v1/approvals${query}`);
    expect(r.status, r.body?.reason).toBe(200);
    return (r.body.items as { approval_id: string }[]).map((a) => a.approval_id);
  };

  beforeEach(async () => {
    f = await fixture();
    t = await cast(f);
    seed = new Seed(f.store.db, () => f.now.value);
    seed.capability('acme', 'pay.send', { tier: 5, irreversible: true, approvers: ['carol'] });
    seed.capability('acme', 'crm.read', { tier: 4 });
    seed.capability('other', 'pay.send', { irreversible: true });
    seed.task('acme', 'launch', { sponsor: 'carol', status: 'active', actors: ['bot', 'bot2'] });
    seed.task('other', 'launch', { sponsor: 'olga', status: 'active', actors: ['oscar'] });
    const defer = (
      tenant: string,
      actorId: string,
      capability: string,
      extra: { approvalTtlMs?: number; intent?: string } = {},
    ) => {
      const d = seed.decision(tenant, {
        taskId: 'launch',
        actorId,
        capability,
        outcome: 'deferred',
        amountMicros: 12_340_000n,
        ...extra,
      });
      f.now.value = new Date(f.now.value.getTime() + 1000);
      return d.approvalId!;
    };
    pay = defer('acme', 'bot', 'pay.send', { intent: 'refund order 7' });
    read = defer('acme', 'bot2', 'crm.read');
    brief = defer('acme', 'bot', 'crm.read', { approvalTtlMs: 3_600_000 });
    foreign = defer('other', 'oscar', 'pay.send');
  });
  afterEach(async () => f.close());

  it('shows approvals to approvers, operators, named approvers and requesters, within the tenant only', async () => {
    expect(await ids(t.bob)).toEqual([pay, read, brief]);
    expect(await ids(t.alice)).toEqual([pay, read, brief]);
    expect(await ids(t.carol)).toEqual([pay]);
    expect(await ids(t.bot)).toEqual([pay, brief]);
    expect(await ids(t.bot2)).toEqual([read]);
    expect(await ids(t.dave)).toEqual([]);
    expect(await ids(t.erin)).toEqual([]);
    expect(await ids(t.olga)).toEqual([foreign]);

    const one = await as(f, t.carol, `/v1/approvals/${pay}`);
    expect(one.status).toBe(200);
    expect(one.body).toMatchObject({
      approval_id: pay,
      status: 'pending',
      task_id: 'launch',
      capability: 'pay.send',
      action: 'read',
      intent: 'refund order 7',
      requester_id: 'bot',
      amount_usd: 12.34,
      decided_by: null,
      channel: null,
      expires_at: '2026-06-02T12:00:00.000Z',
    });
    for (const [token, id] of [
      [t.carol, read],
      [t.erin, pay],
      [t.olga, pay],
      [t.bob, foreign],
    ] as const) {
      const miss = await as(f, token, `/v1/approvals/${id}`);
      expect(miss.status).toBe(404);
      expect(miss.body).toEqual({ code: 'not_found', reason: 'no such approval' });
    }
  });

  it('a named approver decides, in one transaction with its journal record', async () => {
    const r = await decide(t.carol, pay, { decision: 'approve', note: 'refund is due' });
    expect(r.status, r.body?.reason).toBe(200);
    expect(r.body.approval).toMatchObject({
      approval_id: pay,
      status: 'approved',
      decided_by: 'carol',
      decided_at: f.now.value.toISOString(),
      channel: 'api',
      note: 'refund is due',
    });
    expect(r.body.receipt_id).toMatch(/^rcp_/);
    const row = f.store.db
      .prepare('SELECT * FROM journal WHERE tenant_id = ? AND receipt_id = ?')
      .get('acme', r.body.receipt_id) as Record<string, unknown>;
    expect(row).toMatchObject({
      sequence: r.body.sequence,
      kind: 'approval',
      task_id: 'launch',
      actor_id: 'carol',
      capability: 'pay.send',
      tier: 5,
      allowed: 1,
      grant_id: '',
      amount_micros: 0,
    });
    const record = JSON.parse(row.record as string);
    expect(record).toMatchObject({
      approval_id: pay,
      decision: 'approve',
      note: 'refund is due',
      channel: 'api',
      outcome: 'approved',
    });
    expect(row.intent_id).toBe(r.body.approval.intent_id);

    // bob denies one with the approver role; no note is fine
    const denied = await decide(t.bob, read, { decision: 'deny' });
    expect(denied.body.approval).toMatchObject({ status: 'denied', note: null });
    expect(await ids(t.bob, '?status=approved')).toEqual([pay]);
    expect(await ids(t.bob, '?status=denied')).toEqual([read]);
  });

  it('the first decision wins: a decided or consumed approval is 409', async () => {
    const [a, b] = await Promise.all([
      decide(t.bob, pay, { decision: 'deny' }),
      decide(t.carol, pay, { decision: 'approve' }),
    ]);
    expect([a.status, b.status].sort()).toEqual([200, 409]);
    const loser = a.status === 409 ? a : b;
    expect(loser.body.code).toBe('already_decided');
    const journaled = f.store.db
      .prepare("SELECT count(*) FROM journal WHERE kind = 'approval'")
      .pluck()
      .get();
    expect(journaled).toBe(1);

    f.store.db.prepare("UPDATE approvals SET status = 'consumed' WHERE id = ?").run(read);
    const consumed = await decide(t.bob, read, { decision: 'approve' });
    expect(consumed.status).toBe(409);
    expect(consumed.body.reason).toMatch(/already consumed/);
    expect(await ids(t.bob, '?status=consumed')).toEqual([read]);
  });

  it('never the requester (403), never someone without the approver role or a name (403), never unseen (404)', async () => {
    const self = await decide(t.bot, pay, { decision: 'approve' });
    expect(self.status).toBe(403);
    expect(self.body.code).toBe('self_approval');
    // An operator sees every approval but decides none without the approver role or a name.
    await addActor(
      f.store,
      { tenantId: 'acme', id: 'opal', kind: 'human', roles: ['operator'] },
      f.now.value,
    );
    const operator = await decide(await f.token('acme', 'opal'), pay, { decision: 'approve' });
    expect(operator.status).toBe(403);
    expect(operator.body.code).toBe('not_an_approver');
    expect((await decide(t.erin, pay, { decision: 'approve' })).status).toBe(404);
    expect((await decide(t.olga, pay, { decision: 'approve' })).status).toBe(404);
    expect((await decide(t.bob, 'apr_nothing', { decision: 'approve' })).status).toBe(404);
    expect((await as(f, t.bob, `/v1/approvals/${pay}`)).body.status).toBe('pending');
  });

  it('an expired approval is listed as expired and takes no decision (409, saying so)', async () => {
    f.now.value = new Date(f.now.value.getTime() + 3_600_000);
    expect(await ids(t.bob, '?status=expired')).toEqual([brief]);
    expect(await ids(t.bob, '?status=pending')).toEqual([pay, read]);
    const r = await decide(t.bob, brief, { decision: 'approve' });
    expect(r.status).toBe(409);
    expect(r.body).toMatchObject({
      code: 'approval_expired',
      reason: expect.stringMatching(/expired at .* can no longer be decided/),
    });
    expect((await as(f, t.bob, `/v1/approvals/${brief}`)).body.status).toBe('expired');
    // an approved approval past its expiry is expired too
    await decide(t.bob, read, { decision: 'approve' });
    f.now.value = new Date(f.now.value.getTime() + 86_400_000);
    expect(await ids(t.bob, '?status=expired')).toEqual([pay, read, brief]);
  });

  it('refuses bad bodies and pages with a cursor', async () => {
    for (const [body, field] of [
      [{ decision: 'maybe' }, 'decision'],
      [{}, 'decision'],
      [{ decision: 'approve', note: 'x'.repeat(1001) }, 'note'],
      [{ decision: 'approve', by: 'bob' }, 'by'],
    ] as const) {
      const r = await decide(t.bob, pay, body);
      expect(r.status, JSON.stringify(body)).toBe(400);
      expect(r.body.field).toBe(field);
    }
    const first = await as(f, t.bob, '/v1/approvals?limit=2');
    expect(first.body.items).toHaveLength(2);
    const next = await as(f, t.bob, `/v1/approvals?limit=2&cursor=${first.body.next_cursor}`);
    expect(next.body.items.map((a: { approval_id: string }) => a.approval_id)).toEqual([brief]);
    expect(next.body.next_cursor).toBeNull();
    for (const q of ['limit=0', 'limit=201', 'cursor=%%%', 'status=open']) {
      expect((await as(f, t.bob, `/v1/approvals?${q}`)).status, q).toBe(400);
    }
    expect((await as(f, t.bob, '/v1/approvals?limit=200')).body.items).toHaveLength(3);
    // a cursor of another list is refused, not misread
    const receipts = await as(f, t.alice, '/v1/receipts?limit=1');
    expect(receipts.body.next_cursor).toEqual(expect.any(String));
    const wrongList = await as(f, t.bob, `/v1/approvals?cursor=${receipts.body.next_cursor}`);
    expect(wrongList.status).toBe(400);
    expect(wrongList.body.field).toBe('cursor');
  });
});
