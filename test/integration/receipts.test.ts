import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { fixture, type Fixture } from '../helpers/fixture.js';
import { as, cast, Seed, type Cast } from '../helpers/seed.js';

describe('receipts (app.inject, real SQLite)', () => {
  let f: Fixture;
  let t: Cast;
  let seed: Seed;
  let allowed: ReturnType<Seed['decision']>;
  let refused: ReturnType<Seed['decision']>;
  let side: ReturnType<Seed['decision']>;
  let foreign: ReturnType<Seed['decision']>;

  const ids = async (token: string, query = '') => {
    const r = await as(f, token, `/v1/receipts${query}`);
    expect(r.status, r.body?.reason).toBe(200);
    return (r.body.items as { receipt_id: string }[]).map((x) => x.receipt_id);
  };

  beforeEach(async () => {
    f = await fixture();
    t = await cast(f);
    seed = new Seed(f.store.db, () => f.now.value);
    seed.capability('acme', 'crm.read');
    seed.capability('other', 'crm.read');
    seed.task('acme', 'launch', { sponsor: 'carol', status: 'active', actors: ['bot', 'bot2'] });
    seed.task('acme', 'side', { sponsor: 'erin', status: 'active', actors: ['bot2'] });
    seed.task('other', 'launch', { sponsor: 'olga', status: 'active', actors: ['oscar'] });
    allowed = seed.decision('acme', {
      taskId: 'launch',
      actorId: 'bot',
      capability: 'crm.read',
      outcome: 'allowed',
      amountMicros: 2_500_000n,
      intent: 'look up ACME Corp',
    });
    refused = seed.decision('acme', {
      taskId: 'launch',
      actorId: 'bot2',
      capability: 'crm.read',
      outcome: 'refused',
      code: 'budget_exceeded',
      reason: 'task launch has 0 USD left',
      remedy: 'raise the budget',
    });
    side = seed.decision('acme', {
      taskId: 'side',
      actorId: 'bot2',
      capability: 'crm.read',
      outcome: 'allowed',
    });
    foreign = seed.decision('other', {
      taskId: 'launch',
      actorId: 'oscar',
      capability: 'crm.read',
      outcome: 'allowed',
    });
  });
  afterEach(async () => f.close());

  it('publishes intent and effect fields, never the caller’s correlation identifiers or the request digest', async () => {
    const r = await as(f, t.bot, `/v1/receipts/${allowed.receiptId}`);
    expect(r.status).toBe(200);
    expect(r.body).toEqual({
      receipt_id: allowed.receiptId,
      sequence: allowed.sequence,
      kind: 'decision',
      intent_id: allowed.intentId,
      task_id: 'launch',
      actor_id: 'bot',
      capability: 'crm.read',
      action: 'read',
      intent: 'look up ACME Corp',
      effect_key_step: expect.any(String),
      outcome: 'allowed',
      allowed: true,
      code: null,
      reason: null,
      remedy: null,
      amount_usd: 2.5,
      grant_id: null,
      approval_id: null,
      effect: null,
      effect_id: null,
      observed: false,
      occurred_at: '2026-06-01T12:00:00.000Z',
      linked_at: '2026-06-01T12:00:00.000Z',
      record_hash: expect.stringMatching(/^[0-9a-f]{64}$/),
      leaf: expect.stringMatching(/^[0-9a-f]{64}$/),
      redacted: false,
      policy_version: null, // seeded straight into the journal: no policy step was recorded
    });
    const all = JSON.stringify((await as(f, t.alice, '/v1/receipts?limit=200')).body);
    for (const d of [allowed, refused, side]) {
      for (const secret of [d.correlationId, d.traceId, d.digest]) expect(all).not.toContain(secret);
    }
    for (const key of ['correlation_id', 'trace_id', 'request_digest']) expect(all).not.toContain(key);
    expect((await as(f, t.bot2, `/v1/receipts/${refused.receiptId}`)).body).toMatchObject({
      outcome: 'refused',
      allowed: false,
      code: 'budget_exceeded',
      reason: 'task launch has 0 USD left',
      remedy: 'raise the budget',
      amount_usd: 0,
    });
  });

  it('shows operators, administrators and auditors everything; others what they did and the tasks they sponsor', async () => {
    const acme = [allowed, refused, side].map((d) => d.receiptId);
    expect(await ids(t.alice)).toEqual(acme);
    expect(await ids(t.dave)).toEqual(acme);
    expect(await ids(t.carol)).toEqual([allowed.receiptId, refused.receiptId]);
    expect(await ids(t.erin)).toEqual([side.receiptId]);
    expect(await ids(t.bot)).toEqual([allowed.receiptId]);
    expect(await ids(t.bot2)).toEqual([refused.receiptId, side.receiptId]);
    expect(await ids(t.bob)).toEqual([]);
    expect(await ids(t.olga)).toEqual([foreign.receiptId]);
    for (const [token, id] of [
      [t.bot, refused.receiptId],
      [t.erin, allowed.receiptId],
      [t.olga, allowed.receiptId],
      [t.alice, foreign.receiptId],
    ] as const) {
      const miss = await as(f, token, `/v1/receipts/${id}`);
      expect(miss.status).toBe(404);
      expect(miss.body).toEqual({ code: 'not_found', reason: 'no such receipt' });
    }
  });

  it('filters by task_id (and the deprecated work_id); an unknown or foreign task is 404', async () => {
    expect(await ids(t.alice, '?task_id=side')).toEqual([side.receiptId]);
    expect(await ids(t.alice, '?work_id=side')).toEqual([side.receiptId]);
    expect(await ids(t.alice, '?task_id=side&work_id=side')).toEqual([side.receiptId]);
    expect(await ids(t.bot, '?task_id=side')).toEqual([]);
    const both = await as(f, t.alice, '/v1/receipts?task_id=side&work_id=launch');
    expect(both.status).toBe(400);
    expect(both.body.field).toBe('work_id');
    expect((await as(f, t.alice, '/v1/receipts?task_id=nothing')).status).toBe(404);
    seed.task('other', 'elsewhere', { sponsor: 'olga' });
    expect((await as(f, t.alice, '/v1/receipts?task_id=elsewhere')).status).toBe(404);
    const doc = (await as(f, t.alice, '/v1/openapi.json')).body;
    const params = doc.paths['/v1/receipts'].get.parameters as { name: string; deprecated?: boolean }[];
    expect(params.find((p) => p.name === 'work_id')?.deprecated).toBe(true);
    expect(params.find((p) => p.name === 'task_id')?.deprecated).toBeUndefined();
  });

  it('a redacted receipt shows no content; the redaction record is a receipt of its own', async () => {
    const r = await f.store.redactions.redact({
      tenantId: 'acme',
      from: allowed.sequence,
      to: allowed.sequence,
      reason: 'erasure request',
      authorisedBy: 'alice',
      at: f.now.value.toISOString(),
    });
    const blanked = await as(f, t.alice, `/v1/receipts/${allowed.receiptId}`);
    expect(blanked.body).toMatchObject({
      sequence: allowed.sequence,
      redacted: true,
      outcome: 'redacted',
      action: null,
      intent: null,
      reason: null,
      effect: null,
    });
    expect(JSON.stringify(blanked.body)).not.toContain('ACME Corp');
    // the row no longer names its actor or task, so only tenant-wide readers find it
    expect((await as(f, t.bot, `/v1/receipts/${allowed.receiptId}`)).status).toBe(404);
    const record = await as(f, t.alice, `/v1/receipts/${r.receiptId}`);
    expect(record.body).toMatchObject({
      kind: 'redaction',
      redacted: false,
      actor_id: 'alice',
      reason: 'erasure request',
    });
  });

  it('approval decisions are receipts of the approver, and of the task’s sponsor', async () => {
    seed.capability('acme', 'pay.send', { irreversible: true });
    const deferred = seed.decision('acme', {
      taskId: 'launch',
      actorId: 'bot',
      capability: 'pay.send',
      outcome: 'deferred',
    });
    const decided = await as(f, t.bob, `/v1/approvals/${deferred.approvalId}/decision`, {
      method: 'POST',
      body: { decision: 'deny', note: 'no' },
    });
    expect(decided.status).toBe(200);
    const r = await as(f, t.bob, `/v1/receipts/${decided.body.receipt_id}`);
    expect(r.body).toMatchObject({
      kind: 'approval',
      actor_id: 'bob',
      outcome: 'denied',
      allowed: false,
      approval_id: deferred.approvalId,
      amount_usd: 0,
    });
    expect((await as(f, t.carol, `/v1/receipts/${decided.body.receipt_id}`)).status).toBe(200);
    expect((await as(f, t.bot, `/v1/receipts/${decided.body.receipt_id}`)).status).toBe(404);
  });

  it('pages in journal order; limit 1..200; bad limits and cursors are 400 naming the field', async () => {
    for (let i = 0; i < 200; i++)
      seed.decision('acme', { taskId: 'launch', actorId: 'bot', capability: 'crm.read', outcome: 'refused' });
    const one = await as(f, t.alice, '/v1/receipts?limit=1');
    expect(one.body.items.map((x: { sequence: number }) => x.sequence)).toEqual([1]);
    const two = await as(f, t.alice, `/v1/receipts?limit=1&cursor=${one.body.next_cursor}`);
    expect(two.body.items[0].sequence).toBe(2);
    const page = await as(f, t.alice, '/v1/receipts?limit=200');
    expect(page.body.items).toHaveLength(200);
    const rest = await as(f, t.alice, `/v1/receipts?limit=200&cursor=${page.body.next_cursor}`);
    expect(rest.body.items).toHaveLength(3);
    expect(rest.body.next_cursor).toBeNull();
    expect((await as(f, t.alice, '/v1/receipts')).body.items).toHaveLength(50);
    for (const [q, field] of [
      ['limit=0', 'limit'],
      ['limit=201', 'limit'],
      ['limit=-1', 'limit'],
      ['cursor=AAAA', 'cursor'],
      ['cursor=not a cursor', 'cursor'],
      [`cursor=${Buffer.from('{"s":"receipts","k":-1}').toString('base64url')}`, 'cursor'],
      [`cursor=${'A'.repeat(201)}`, 'cursor'],
    ] as [string, string][]) {
      const r = await as(f, t.alice, `/v1/receipts?${q.replaceAll(' ', '%20')}`);
      expect(r.status, q).toBe(400);
      expect(r.body.field, q).toBe(field);
    }
  });
});
