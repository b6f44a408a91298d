import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { addDestination } from '../../src/provisioning/notify.js';
import { call, consoleOf, type ConsoleClient, type Session } from '../helpers/console.js';
import { fixture, type Fixture } from '../helpers/fixture.js';
import { capability, PERMIT_ALL, register } from '../helpers/registry.js';

const BOT_TOKEN = 'xoxb-console-must-never-see-this';

/**
 * The console's notifications routes and approval links over a real SQLite store: deliveries
 * come from real decisions through the outbox, and a dead letter from the store's own
 * lease-guarded attempt record, as the delivery loop writes it.
 */
describe('console notifications and approval links (app.inject, real SQLite)', () => {
  let f: Fixture;
  let c: ConsoleClient;
  let tokens: Record<'bob' | 'bot' | 'opal' | 'audra' | 'oscar', string>;
  let alice: Session;
  let webhookSecret: string;
  const pay = (step: string) =>
    f.app.inject({
      method: 'POST',
      url: '/v1/action',
      headers: { authorization: `Bearer ${tokens.bot}` },
      payload: {
        tenant_id: 'acme',
        actor_id: 'bot',
        capability: 'payments.send',
        action: 'write',
        task_id: 't1',
        effect_key_step: step,
        amount_usd: 25,
      },
    });
  /** Claim every due delivery and record it dead, as the loop does after the last attempt. */
  const killAll = async () => {
    const now = f.now.value.toISOString();
    const until = new Date(f.now.value.getTime() + 60_000).toISOString();
    for (const d of await f.store.notify.claimDue(now, 'w1', until, 100)) {
      await f.store.notify.recordAttempt({
        tenantId: d.delivery.tenantId,
        eventId: d.event.id,
        destinationId: d.destination.id,
        owner: 'w1',
        at: now,
        outcome: 'dead',
        status: 500,
        error: 'status_500',
        nextAttemptAt: null,
      });
    }
  };

  beforeEach(async () => {
    f = await fixture();
    const human = (tenantId: string, id: string, roles: string[]) =>
      f.store.actors.add({
        tenantId,
        id,
        kind: 'human',
        roles: roles as never,
        managerId: null,
        certSubject: null,
        displayName: null,
        createdAt: f.now.value.toISOString(),
      });
    await human('acme', 'bob', ['approver']);
    await human('acme', 'opal', ['operator']);
    await human('acme', 'audra', ['auditor']);
    // another tenant's operator
    await human('other', 'oscar', ['operator']);
    await register(f.store, 'acme', {
      caps: [
        capability('acme', 'payments.send', {
          actions: ['write'],
          irreversible: true,
          tier: 2,
          costMicros: 10_000_000n,
        }),
      ],
      grants: [['bot', 'payments.send']],
      tasks: [{ id: 't1', sponsor: 'alice', budget: 1_000_000_000n }],
      policy: PERMIT_ALL,
    });
    const hook = await addDestination(f.dir, f.store, {
      tenantId: 'acme',
      id: 'ops-hook',
      kind: 'webhook',
      url: 'https://hooks.example.org/svc?token=receiver-side-secret',
      events: ['approval.requested'],
      now: f.now.value,
    });
    webhookSecret = hook.secret!;
    await addDestination(f.dir, f.store, {
      tenantId: 'acme',
      id: 'team-chat',
      kind: 'chat',
      events: ['approval.*'],
      options: { channel: 'C0APPROVALS' },
      secret: BOT_TOKEN,
      remindAfterSeconds: 900,
      now: f.now.value,
    });
    tokens = {
      bob: await f.token('acme', 'bob'),
      bot: await f.token('acme', 'bot'),
      opal: await f.token('acme', 'opal'),
      audra: await f.token('acme', 'audra'),
      oscar: await f.token('other', 'oscar'),
    };
    c = await consoleOf(f);
    alice = await c.signIn(f.adminToken);
  });
  afterEach(async () => {
    await c.app.close();
    await f.close();
  });

  it('lists destinations with their settings and counts, never a secret; only operators, administrators and auditors read', async () => {
    expect((await pay('p1')).json().decision).toBe('deferred');
    await killAll();
    const r = await call(c, alice, '/api/notifications');
    expect(r.status).toBe(200);
    expect(r.body.counts).toEqual({ pending: 0, dead: 2, disabled: 0 });
    expect(r.body.destinations).toEqual([
      expect.objectContaining({
        destination_id: 'ops-hook',
        kind: 'webhook',
        url: 'https://hooks.example.org/svc?…',
        events: ['approval.requested'],
        settings: {},
        enabled: true,
        disabled_reason: null,
      }),
      expect.objectContaining({
        destination_id: 'team-chat',
        kind: 'chat',
        url: 'https://slack.com/api',
        settings: { channel: 'C0APPROVALS', toApprovers: false },
        remind_after_seconds: 900,
      }),
    ]);
    const text = r.raw.toString('utf8');
    for (const secret of [webhookSecret, BOT_TOKEN, 'receiver-side-secret', 'notify.ops-hook'])
      expect(text).not.toContain(secret);

    for (const who of ['opal', 'audra'] as const) {
      expect((await call(c, await c.signIn(tokens[who]), '/api/notifications')).status).toBe(200);
    }
    for (const who of ['bob'] as const) {
      const s = await c.signIn(tokens[who]);
      const refused = await call(c, s, '/api/notifications');
      expect(refused.status).toBe(403);
      expect(refused.body.code).toBe('forbidden');
      expect((await call(c, s, '/api/notifications/deliveries')).status).toBe(403);
    }
    // Another tenant's operator sees none of it.
    const oscar = await c.signIn(tokens.oscar);
    expect((await call(c, oscar, '/api/notifications')).body).toEqual({
      counts: { pending: 0, dead: 0, disabled: 0 },
      destinations: [],
    });
    expect((await call(c, oscar, '/api/notifications/deliveries')).body.items).toEqual([]);
  });

  it('pages deliveries newest first with a keyset cursor, filtered by state and destination', async () => {
    for (const step of ['p1', 'p2']) {
      await pay(step);
      f.now.value = new Date(f.now.value.getTime() + 1000);
    }
    // Two approvals, each to two destinations: four deliveries, the newest approval's first.
    const all = await call(c, alice, '/api/notifications/deliveries');
    expect(all.body.items).toHaveLength(4);
    expect(all.body.next_cursor).toBeNull();
    const seen: string[] = [];
    let cursor: string | null = null;
    do {
      const q: string = cursor === null ? '' : `&cursor=${encodeURIComponent(cursor)}`;
      const page = await call(c, alice, `/api/notifications/deliveries?limit=1${q}`);
      expect(page.status).toBe(200);
      expect(page.body.items).toHaveLength(1);
      seen.push(`${page.body.items[0].event_id}/${page.body.items[0].destination_id}`);
      cursor = page.body.next_cursor;
    } while (cursor !== null);
    expect(seen).toEqual(
      all.body.items.map(
        (d: { event_id: string; destination_id: string }) => `${d.event_id}/${d.destination_id}`,
      ),
    );
    expect(all.body.items[0].created_at >= all.body.items[3].created_at).toBe(true);

    const hook = await call(c, alice, '/api/notifications/deliveries?destination=ops-hook&state=pending');
    expect(hook.body.items.map((d: { destination_id: string }) => d.destination_id)).toEqual([
      'ops-hook',
      'ops-hook',
    ]);
    expect((await call(c, alice, '/api/notifications/deliveries?state=dead')).body.items).toEqual([]);
    const bad = await call(c, alice, '/api/notifications/deliveries?cursor=nope');
    expect(bad.status).toBe(400);
    expect(bad.body.field).toBe('cursor');
    const badState = await call(c, alice, '/api/notifications/deliveries?state=lost');
    expect(badState.status).toBe(400);
    expect(badState.body.field).toBe('state');
    expect((await call(c, alice, '/api/notifications/deliveries?destination=nope')).status).toBe(404);
  });

  it('redelivers a dead letter with the same event id: administrators only, with the CSRF token, through the CLI’s function', async () => {
    await pay('p1');
    await killAll();
    const dead = (await call(c, alice, '/api/notifications/deliveries?state=dead&destination=ops-hook')).body
      .items[0];
    const body = { event_id: dead.event_id, destination_id: 'ops-hook' };
    const post = (s: Session, b: unknown = body, csrf?: string | null) =>
      call(c, s, '/api/notifications/redeliver', {
        method: 'POST',
        body: b,
        ...(csrf !== undefined ? { csrf } : {}),
      });

    // An operator without the administrator role, and an auditor, are refused; nothing changes.
    for (const who of ['opal', 'audra', 'bob'] as const) {
      const refused = await post(await c.signIn(tokens[who]));
      expect(refused.status).toBe(403);
      expect(refused.body).toMatchObject({
        code: 'forbidden',
        reason: 'this route needs the administrator role',
      });
    }
    const noCsrf = await post(alice, body, null);
    expect(noCsrf.status).toBe(403);
    expect(noCsrf.body.code).toBe('csrf_failed');
    expect((await call(c, alice, '/api/notifications')).body.counts.dead).toBe(2);

    const bad = await post(alice, { event_id: 'not-an-event', destination_id: 'ops-hook' });
    expect(bad.status).toBe(400);
    expect(bad.body.field).toBe('event_id');
    const extra = await post(alice, { ...body, url: 'https://elsewhere.example' });
    expect(extra.status).toBe(400);

    const ok = await post(alice);
    expect(ok.status).toBe(200);
    expect(ok.body).toEqual({
      tenant_id: 'acme',
      event_id: dead.event_id,
      destination_id: 'ops-hook',
      state: 'pending',
    });
    const [again] = await f.store.notify.claimDue(
      f.now.value.toISOString(),
      'w2',
      new Date(f.now.value.getTime() + 60_000).toISOString(),
      10,
    );
    expect(again).toMatchObject({ event: { id: dead.event_id }, destination: { id: 'ops-hook' } });
    // Pending now: a second redeliver finds no dead letter.
    const twice = await post(alice);
    expect(twice.status).toBe(404);
    expect(twice.body.code).toBe('not_found');
  });

  it('opens one approval by id for those who may read it, in any status; others learn nothing', async () => {
    const id = (await pay('p1')).json().approval.approval_id as string;
    const read = await call(c, alice, `/api/approvals/${id}`);
    expect(read.status).toBe(200);
    expect(read.body).toMatchObject({ approval_id: id, status: 'pending', capability: 'payments.send' });
    const bob = await c.signIn(tokens.bob);
    expect((await call(c, bob, `/api/approvals/${id}`)).status).toBe(200);
    // Reading decides nothing.
    expect(
      (await call(c, bob, '/api/approvals')).body.items.map((a: { approval_id: string }) => a.approval_id),
    ).toEqual([id]);

    const none = await call(c, bob, '/api/approvals/apr_does_not_exist');
    for (const [who, s] of [
      ['audra', await c.signIn(tokens.audra)],
      ['oscar', await c.signIn(tokens.oscar)],
    ] as const) {
      const hidden = await call(c, s, `/api/approvals/${id}`);
      expect(hidden.status, who).toBe(404);
      expect(hidden.body.code).toBe('not_found');
      // the same answer as for an id that does not exist, and the id is not echoed
      expect(hidden.body).toEqual(none.body);
      expect(JSON.stringify(hidden.body)).not.toContain(id);
    }
    expect(none.status).toBe(404);
    expect((await call(c, undefined, `/api/approvals/${id}`)).status).toBe(401);
  });
});
