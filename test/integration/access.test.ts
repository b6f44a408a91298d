import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { addActor } from '../../src/provisioning/actor.js';
import { fixture, type Fixture } from '../helpers/fixture.js';
import { capability, register } from '../helpers/registry.js';
import { as, cast, Seed, type Cast } from '../helpers/seed.js';

const HOUR = 3600;
const write = (step: string) => ({
  tenant_id: 'acme',
  actor_id: 'bot',
  capability: 'crm.write',
  action: 'write',
  task_id: 't1',
  effect_key_step: step,
  amount_usd: 1,
});

/**
 * Access requests, manager cards and entitlements through the routes (app.inject, real
 * SQLite). In acme, bot's manager is alice (administrator, operator); erin owns crm.write;
 * carol manages bot2; dave is an auditor; bob an approver, who has no say over access.
 */
describe('access requests, manager cards, entitlements', () => {
  let f: Fixture;
  let t: Cast;
  const post = (token: string, url: string, body: unknown) => as(f, token, url, { method: 'POST', body });
  const request = (token: string, over: Record<string, unknown> = {}) =>
    post(token, '/v1/access-requests', {
      capability: 'crm.write',
      reason: 'Q3 cleanup needs writes',
      duration_seconds: 8 * HOUR,
      ...over,
    });
  const cardOf = async (token: string, requestId: string) => {
    const r = await as(f, token, '/v1/manager-cards');
    return (r.body as { card_id: string; access_request_id: string }[]).find(
      (c) => c.access_request_id === requestId,
    )!.card_id;
  };
  const decide = (token: string, body: Record<string, unknown>) =>
    post(token, '/v1/manager-cards/decide', body);

  beforeEach(async () => {
    f = await fixture();
    t = await cast(f);
    await register(f.store, 'acme', {
      caps: [
        capability('acme', 'crm.write', { requestable: true, owners: ['erin'], actions: ['write'] }),
        capability('acme', 'crm.read', { requestable: true }),
        capability('acme', 'pay.send', { requestable: false, actions: ['write'] }),
      ],
      tasks: [{ id: 't1', sponsor: 'alice', budget: 100_000_000n, actors: ['bot', 'bot2'] }],
    });
  });
  afterEach(async () => f.close());

  it('catalogue → request → cards → decide → entitlement → allowed → revoke → refused, every step journaled', async () => {
    expect((await as(f, t.bot, '/v1/catalogue')).body.map((c: { name: string }) => c.name)).toEqual([
      'crm.read',
      'crm.write',
    ]);
    const before = await post(t.bot, '/v1/action', write('w0'));
    expect(before.status).toBe(403);
    expect(before.body).toMatchObject({ code: 'not_permitted' });
    expect(before.body.remedy).toMatch(/`svc access request crm\.write --reason/);

    const made = await request(t.bot);
    expect(made.status).toBe(201);
    const req = made.body.access_request;
    expect(req).toMatchObject({
      status: 'pending',
      actor_id: 'bot',
      capability: 'crm.write',
      duration_seconds: 8 * HOUR,
      entitlement_id: null,
    });
    expect(
      req.cards.map((c: { recipient_id: string; role: string }) => `${c.recipient_id}:${c.role}`),
    ).toEqual(['alice:manager', 'erin:owner']);
    expect(made.body.receipt.receipt_id).toMatch(/^rcp_/);

    const aliceCards = (await as(f, t.alice, '/v1/manager-cards')).body;
    expect(Array.isArray(aliceCards)).toBe(true);
    expect(aliceCards).toEqual([
      expect.objectContaining({
        access_request_id: req.access_request_id,
        status: 'pending',
        role: 'manager',
        requester_id: 'bot',
        reason: 'Q3 cleanup needs writes',
      }),
    ]);
    expect((await as(f, t.bob, '/v1/manager-cards')).body).toEqual([]);

    const decided = await decide(t.alice, {
      card_id: aliceCards[0].card_id,
      decision: 'approve',
      duration_seconds: 4 * HOUR,
      note: 'cleanup only',
    });
    expect(decided.status).toBe(200);
    expect(decided.body.card.status).toBe('approved');
    expect(decided.body.access_request).toMatchObject({
      status: 'approved',
      decided_by: 'alice',
      granted_seconds: 4 * HOUR,
      note: 'cleanup only',
    });
    const ent = decided.body.entitlement;
    expect(ent).toMatchObject({
      actor_id: 'bot',
      capability: 'crm.write',
      status: 'active',
      granted_by: 'alice',
      access_request_id: req.access_request_id,
      expires_at: '2026-06-01T16:00:00.000Z',
    });
    const rows = f.store.db.prepare('SELECT * FROM entitlements WHERE id = ?').all(ent.entitlement_id);
    expect(rows).toHaveLength(1);

    expect((await post(t.bot, '/v1/action', write('w1'))).status).toBe(200);
    expect(
      (await as(f, t.bot, '/v1/capabilities')).body.capabilities.map((c: { name: string }) => c.name),
    ).toEqual(['crm.write']);

    const revoked = await post(t.bot, `/v1/access-requests/${req.access_request_id}/revoke`, {
      note: 'done',
    });
    expect(revoked.status).toBe(200);
    expect(revoked.body.access_request).toMatchObject({ status: 'revoked', revoked_by: 'bot' });
    const refused = await post(t.bot, '/v1/action', write('w2'));
    expect(refused.status).toBe(403);
    expect(refused.body.code).toBe('not_permitted');
    const list = await as(f, t.alice, `/v1/entitlements?actor_id=bot`);
    expect(list.body.items).toEqual([expect.objectContaining({ status: 'revoked', revoked_by: 'bot' })]);

    const receipts = (await as(f, t.alice, '/v1/receipts?limit=200')).body.items as {
      kind: string;
      outcome: string;
      actor_id: string;
      intent_id: string;
    }[];
    expect(
      receipts.filter((r) => r.kind === 'access').map((r) => `${r.outcome}:${r.actor_id}:${r.intent_id}`),
    ).toEqual([
      `requested:bot:${req.access_request_id}`,
      `approved:alice:${req.access_request_id}`,
      `revoked:bot:${req.access_request_id}`,
    ]);
  });

  it('only the caller’s own cards; an agent never decides; the first decision wins', async () => {
    const req = (await request(t.bot)).body.access_request;
    const aliceCard = await cardOf(t.alice, req.access_request_id);
    const erinCard = await cardOf(t.erin, req.access_request_id);

    const agent = await decide(t.bot, { card_id: aliceCard, decision: 'approve' });
    expect(agent.status).toBe(403);
    expect(agent.body.code).toBe('not_a_decider');
    expect((await decide(t.bob, { card_id: aliceCard, decision: 'approve' })).status).toBe(404);
    expect((await decide(t.olga, { card_id: aliceCard, decision: 'approve' })).status).toBe(404);

    expect((await decide(t.erin, { card_id: erinCard, decision: 'deny', note: 'use crm.read' })).status).toBe(
      200,
    );
    const late = await decide(t.alice, { card_id: aliceCard, decision: 'approve' });
    expect(late.status).toBe(409);
    expect(late.body.code).toBe('already_decided');

    const all = (await as(f, t.alice, '/v1/manager-cards?status=closed')).body;
    expect(all).toEqual([
      expect.objectContaining({ card_id: aliceCard, status: 'closed', request_status: 'denied' }),
    ]);
    expect((await as(f, t.alice, '/v1/manager-cards')).body).toEqual([]);
    expect((await as(f, t.erin, '/v1/manager-cards?status=denied')).body[0].card_id).toBe(erinCard);
    expect((await as(f, t.erin, '/v1/manager-cards?status=maybe')).status).toBe(400);
    expect(f.store.db.prepare('SELECT count(*) AS n FROM entitlements').get()).toEqual({ n: 0 });
  });

  it('a human requester never gets a card for its own request', async () => {
    await f.store.capabilities.put(
      capability('acme', 'crm.export', { requestable: true, owners: ['erin', 'carol'], actions: ['read'] }),
    );
    const req = (await request(t.erin, { capability: 'crm.export' })).body.access_request;
    expect(req.cards.map((c: { recipient_id: string }) => c.recipient_id)).toEqual(['carol']);
    expect((await as(f, t.erin, '/v1/manager-cards')).body).toEqual([]);
    const carolCard = await cardOf(t.carol, req.access_request_id);
    expect((await decide(t.erin, { card_id: carolCard, decision: 'approve' })).status).toBe(404);
  });

  it('approval grants at most the requested duration; a denial grants none', async () => {
    const req = (await request(t.bot)).body.access_request;
    const card = await cardOf(t.alice, req.access_request_id);
    const longer = await decide(t.alice, { card_id: card, decision: 'approve', duration_seconds: 9 * HOUR });
    expect(longer.status).toBe(400);
    expect(longer.body.field).toBe('duration_seconds');
    const denyFor = await decide(t.alice, { card_id: card, decision: 'deny', duration_seconds: HOUR });
    expect(denyFor.status).toBe(400);
    expect((await decide(t.alice, { card_id: card, decision: 'maybe' })).status).toBe(400);
    const exact = await decide(t.alice, { card_id: card, decision: 'approve' });
    expect(exact.body.access_request.granted_seconds).toBe(8 * HOUR);
    expect(exact.body.entitlement.expires_at).toBe('2026-06-01T20:00:00.000Z');
  });

  it('the request must come from the caller’s catalogue, once at a time, and have someone to decide it', async () => {
    const notRequestable = await request(t.bot, { capability: 'pay.send' });
    expect(notRequestable.status).toBe(403);
    expect(notRequestable.body.code).toBe('not_in_catalogue');
    expect((await request(t.bot, { capability: 'no.such' })).body.code).toBe('not_in_catalogue');
    await f.store.permissions.grant({
      tenantId: 'acme',
      actorId: 'bot',
      capability: 'crm.read',
      grantedAt: 'x',
    });
    const held = await request(t.bot, { capability: 'crm.read' });
    expect(held.status).toBe(409);
    expect(held.body.code).toBe('already_held');

    expect((await request(t.bot)).status).toBe(201);
    const twice = await request(t.bot);
    expect(twice.status).toBe(409);
    expect(twice.body.code).toBe('request_pending');

    await addActor(f.store, { tenantId: 'acme', id: 'etl', kind: 'service' }, f.now.value);
    const nobody = await request(await f.token('acme', 'etl'), { capability: 'crm.read' });
    expect(nobody.status).toBe(409);
    expect(nobody.body.code).toBe('no_decider');

    for (const [over, field] of [
      [{ duration_seconds: 59 }, 'duration_seconds'],
      [{ duration_seconds: 91 * 86_400 }, 'duration_seconds'],
      [{ duration_seconds: 1.5 * HOUR + 0.5 }, 'duration_seconds'],
      [{ reason: '' }, 'reason'],
      [{ capability: 'CRM WRITE' }, 'capability'],
      [{ extra: 1 }, 'extra'],
    ] as const) {
      const r = await request(t.bot2, over);
      expect(r.status, JSON.stringify(over)).toBe(400);
      expect(r.body.field).toBe(field);
    }
    expect((await post(t.bot2, '/v1/access-requests', { capability: 'crm.write' })).status).toBe(400);
  });

  it('reads: the requester, its deciders and tenant-wide readers; nobody else, no other tenant', async () => {
    const id = (await request(t.bot)).body.access_request.access_request_id;
    for (const token of [t.bot, t.alice, t.erin, t.dave]) {
      const r = await as(f, token, `/v1/access-requests/${id}`);
      expect(r.status).toBe(200);
      expect(r.body.access_request_id).toBe(id);
    }
    for (const token of [t.bot2, t.bob, t.carol, t.olga, t.oscar]) {
      expect((await as(f, token, `/v1/access-requests/${id}`)).status).toBe(404);
    }
    expect((await as(f, t.alice, '/v1/access-requests/acr_nope')).status).toBe(404);
    expect((await f.app.inject(`/v1/access-requests/${id}`)).statusCode).toBe(401);
  });

  it('revoke: requester, deciders, operators; never a bystander or an auditor; never twice', async () => {
    const id = (await request(t.bot)).body.access_request.access_request_id;
    expect((await post(t.bot2, `/v1/access-requests/${id}/revoke`, {})).status).toBe(404);
    const auditor = await post(t.dave, `/v1/access-requests/${id}/revoke`, {});
    expect(auditor.status).toBe(403);
    expect(auditor.body.code).toBe('not_a_revoker');
    const withdrawn = await f.app.inject({
      method: 'POST',
      url: `/v1/access-requests/${id}/revoke`,
      headers: { authorization: `Bearer ${t.bot}` },
    });
    expect(withdrawn.statusCode).toBe(200);
    expect(withdrawn.json().access_request.cards.map((c: { status: string }) => c.status)).toEqual([
      'closed',
      'closed',
    ]);
    const again = await post(t.alice, `/v1/access-requests/${id}/revoke`, {});
    expect(again.status).toBe(409);
    expect(again.body.code).toBe('not_revocable');
    const card = (await as(f, t.erin, '/v1/manager-cards?status=closed')).body[0].card_id;
    const onWithdrawn = await decide(t.erin, { card_id: card, decision: 'approve' });
    expect(onWithdrawn.status).toBe(409);
    expect(onWithdrawn.body.code).toBe('request_revoked');

    const second = (await request(t.bot)).body.access_request.access_request_id;
    const ownerRevokes = await post(t.erin, `/v1/access-requests/${second}/revoke`, {
      note: 'no longer needed',
    });
    expect(ownerRevokes.status).toBe(200);
  });

  it('an owner removed since the card was issued no longer decides', async () => {
    const id = (await request(t.bot)).body.access_request.access_request_id;
    const card = await cardOf(t.erin, id);
    await f.store.capabilities.put(
      capability('acme', 'crm.write', { requestable: true, owners: [], actions: ['write'] }),
    );
    const r = await decide(t.erin, { card_id: card, decision: 'approve' });
    expect(r.status).toBe(403);
    expect(r.body.code).toBe('not_a_decider');
  });

  it('an entitlement expires on its own; revoking one stops decisions at once and ends its request', async () => {
    const id = (await request(t.bot)).body.access_request.access_request_id;
    const ent = (
      await decide(t.alice, {
        card_id: await cardOf(t.alice, id),
        decision: 'approve',
        duration_seconds: HOUR,
      })
    ).body.entitlement;
    expect((await post(t.bot, '/v1/action', write('e1'))).status).toBe(200);

    f.now.value = new Date('2026-06-01T13:00:00.000Z');
    expect((await post(t.bot, '/v1/action', write('e2'))).body.code).toBe('not_permitted');
    expect((await as(f, t.bot, `/v1/access-requests/${id}`)).body.status).toBe('expired');
    expect((await as(f, t.bot, `/v1/entitlements/${ent.entitlement_id}`)).body.status).toBe('expired');
    expect((await post(t.bot, `/v1/entitlements/${ent.entitlement_id}/revoke`, {})).body.code).toBe(
      'not_revocable',
    );
    expect((await as(f, t.bot, '/v1/catalogue')).body.map((c: { name: string }) => c.name)).toContain(
      'crm.write',
    );

    const id2 = (await request(t.bot)).body.access_request.access_request_id;
    const ent2 = (await decide(t.erin, { card_id: await cardOf(t.erin, id2), decision: 'approve' })).body
      .entitlement;
    expect((await post(t.bot, '/v1/action', write('e3'))).status).toBe(200);
    expect((await post(t.bot2, `/v1/entitlements/${ent2.entitlement_id}/revoke`, {})).status).toBe(404);
    expect((await post(t.dave, `/v1/entitlements/${ent2.entitlement_id}/revoke`, {})).status).toBe(403);
    const revoked = await post(t.erin, `/v1/entitlements/${ent2.entitlement_id}/revoke`, {
      note: 'audit finding',
    });
    expect(revoked.status).toBe(200);
    expect(revoked.body.entitlement).toMatchObject({ status: 'revoked', revoked_by: 'erin' });
    expect(revoked.body.receipt.sequence).toBeGreaterThan(0);
    expect((await post(t.bot, '/v1/action', write('e4'))).body.code).toBe('not_permitted');
    expect((await as(f, t.bot, `/v1/access-requests/${id2}`)).body).toMatchObject({
      status: 'revoked',
      revoked_by: 'erin',
    });
  });

  it('GET /v1/entitlements: paged, filtered, and only what the viewer may read', async () => {
    const seed = new Seed(f.store.db, () => f.now.value);
    seed.entitlement('acme', 'bot', 'crm.read', { expiresAt: '2026-06-02T00:00:00.000Z' });
    f.now.value = new Date('2026-06-01T12:00:01.000Z');
    seed.entitlement('acme', 'bot', 'pay.send', { expiresAt: '2026-06-01T12:30:00.000Z' });
    f.now.value = new Date('2026-06-01T12:00:02.000Z');
    seed.entitlement('acme', 'bot2', 'crm.write', {
      expiresAt: '2026-06-02T00:00:00.000Z',
      revokedAt: '2026-06-01T12:00:02.000Z',
    });
    seed.entitlement('other', 'oscar', 'crm.read', { expiresAt: '2026-06-02T00:00:00.000Z' });

    const ids = async (token: string, query = '') =>
      (
        (await as(f, token, `/v1/entitlements${query}`)).body.items as {
          actor_id: string;
          capability: string;
        }[]
      ).map((e) => `${e.actor_id}:${e.capability}`);
    expect(await ids(t.alice)).toEqual(['bot:crm.read', 'bot:pay.send', 'bot2:crm.write']);
    expect(await ids(t.dave)).toEqual(['bot:crm.read', 'bot:pay.send', 'bot2:crm.write']);
    expect(await ids(t.bot)).toEqual(['bot:crm.read', 'bot:pay.send']);
    expect(await ids(t.carol)).toEqual(['bot2:crm.write']);
    expect(await ids(t.erin)).toEqual(['bot2:crm.write']);
    expect(await ids(t.bob)).toEqual([]);
    expect(await ids(t.olga)).toEqual(['oscar:crm.read']);
    expect(await ids(t.alice, '?status=revoked')).toEqual(['bot2:crm.write']);
    expect(await ids(t.alice, '?actor_id=bot2')).toEqual(['bot2:crm.write']);
    f.now.value = new Date('2026-06-01T12:45:00.000Z');
    expect(await ids(t.alice, '?status=expired')).toEqual(['bot:pay.send']);
    expect(await ids(t.alice, '?status=active')).toEqual(['bot:crm.read']);

    const first = await as(f, t.alice, '/v1/entitlements?limit=2');
    expect(first.body.items).toHaveLength(2);
    expect(first.body.next_cursor).toEqual(expect.any(String));
    const second = await as(f, t.alice, `/v1/entitlements?limit=2&cursor=${first.body.next_cursor}`);
    expect(second.body.items.map((e: { actor_id: string }) => e.actor_id)).toEqual(['bot2']);
    expect(second.body.next_cursor).toBeNull();
    for (const bad of ['?limit=0', '?limit=201', '?cursor=zzz', '?status=gone']) {
      expect((await as(f, t.alice, `/v1/entitlements${bad}`)).status, bad).toBe(400);
    }
    expect(
      (await as(f, t.alice, '/v1/entitlements?cursor=' + first.body.next_cursor.slice(0, -2))).body.field,
    ).toBe('cursor');
  });
});
