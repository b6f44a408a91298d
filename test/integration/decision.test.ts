import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { fixture, type Fixture } from '../helpers/fixture.js';
import { capability, register } from '../helpers/registry.js';

const body = (over: Record<string, unknown> = {}) => ({
  tenant_id: 'acme',
  actor_id: 'bot',
  capability: 'crm.read',
  action: 'read',
  task_id: 't1',
  effect_key_step: 'step-1',
  ...over,
});

describe('POST /v1/action (app.inject, real SQLite)', () => {
  let f: Fixture;
  let bot: string;
  const act = (b: unknown, url = '/v1/action', token = bot) =>
    f.app.inject({
      method: 'POST',
      url,
      headers: { authorization: `Bearer ${token}` },
      payload: b as object,
    });
  const journalSize = () =>
    (f.store.db.prepare("SELECT count(*) AS n FROM journal WHERE tenant_id = 'acme'").get() as { n: number })
      .n;

  beforeEach(async () => {
    f = await fixture();
    bot = await f.token('acme', 'bot');
    await register(f.store, 'acme', {
      caps: [
        capability('acme', 'crm.read', { requestable: true }),
        capability('acme', 'payments.send', {
          actions: ['write'],
          irreversible: true,
          tier: 3,
          costMicros: 10_000_000n,
        }),
        capability('acme', 'crm.export', { requestable: true }),
        capability('acme', 'crm.sync', { custody: 'brokered', surfaceId: 'crm', operation: 'sync' }),
      ],
      grants: [
        ['bot', 'crm.read'],
        ['bot', 'payments.send'],
        ['bot', 'crm.sync'],
      ],
      tasks: [{ id: 't1', sponsor: 'alice', budget: 100_000_000n, actors: ['bot'] }],
    });
  });
  afterEach(async () => f.close());

  it('allows, mints a grant, reserves the estimate and seals a receipt', async () => {
    const r = await act(body({ intent: 'look up a contact', correlation_id: 'corr-1' }));
    expect(r.statusCode).toBe(200);
    const d = r.json();
    expect(d).toMatchObject({ decision: 'allowed', amount_usd: 1.5, approval: null });
    expect(d.intent_id).toMatch(/^int_[0-9a-f]{32}$/);
    expect(d.grant).toMatchObject({
      grant_id: expect.stringMatching(/^grt_/),
      capability: 'crm.read',
      action: 'read',
      task_id: 't1',
    });
    expect(Date.parse(d.grant.expires_at) - f.now.value.getTime()).toBe(5 * 60_000);
    expect(d.receipt).toMatchObject({
      sequence: 1,
      outcome: 'allowed',
      code: null,
      amount_usd: 1.5,
      record_hash: expect.stringMatching(/^[0-9a-f]{64}$/),
    });
    expect((await f.store.tasks.get('acme', 't1'))!.reservedMicros).toBe(1_500_000n);
    expect(JSON.stringify(d)).not.toContain('corr-1');
    // the private record keeps the correlation id; only its hash is published
    const row = f.store.db
      .prepare("SELECT record FROM journal WHERE tenant_id = 'acme' AND sequence = 1")
      .get() as { record: string };
    expect(JSON.parse(row.record)).toMatchObject({
      correlation_id: 'corr-1',
      intent: 'look up a contact',
      outcome: 'allowed',
    });
  });

  it('a claimed effect key is 409 naming the original intent; the claim is not proof of success', async () => {
    const first = (await act(body())).json();
    const again = await act(body({ intent: 'different text' }));
    expect(again.statusCode).toBe(409);
    expect(again.json()).toMatchObject({
      code: 'duplicate_effect',
      intent_id: first.intent_id,
      outcome: 'allowed',
    });
    expect(again.json().reason).toMatch(/not proof/);
    expect(journalSize()).toBe(1);
  });

  it('refuses claims that are not the caller, before anything is journaled', async () => {
    for (const over of [{ tenant_id: 'other' }, { actor_id: 'alice' }]) {
      const r = await act(body(over));
      expect(r.statusCode).toBe(403);
      expect(r.json()).toMatchObject({ code: 'claims_mismatch', field: Object.keys(over)[0] });
    }
    expect(journalSize()).toBe(0);
  });

  it('refuses bad bodies with 400 naming the field, and journals nothing', async () => {
    const cases: [Record<string, unknown>, string, RegExp][] = [
      [{ extra: 1 }, 'extra', /unknown field/],
      [{ amount_usd: 1.0000001 }, 'amount_usd', /6 decimal/],
      [{ amount_usd: -1 }, 'amount_usd', /./],
      [{ amount_usd: 1e13 }, 'amount_usd', /./],
      [{ effect_key_step: '' }, 'effect_key_step', /./],
      [{ capability: 'Bad Name' }, 'capability', /./],
      [{ intent: 'x\ud800y' }, 'intent', /lone surrogate/],
      [{ task_id: 5 }, 'task_id', /string/],
    ];
    for (const [over, field, reason] of cases) {
      const r = await act(body(over));
      expect(r.statusCode, JSON.stringify(over)).toBe(400);
      expect(r.json().field, JSON.stringify(over)).toBe(field);
      expect(r.json().reason, JSON.stringify(over)).toMatch(reason);
    }
    const { tenant_id: _t, ...missing } = body();
    expect((await act(missing)).json()).toMatchObject({ code: 'invalid_request', field: 'tenant_id' });
    expect(journalSize()).toBe(0);
  });

  it('every refusal is sealed with a stable code, a reason and, where nameable, the remedy', async () => {
    await f.store.tasks.create({
      tenantId: 'acme',
      id: 'done',
      title: null,
      sponsorId: 'alice',
      status: 'active',
      parentId: null,
      rootId: 'done',
      budgetMicros: 1n,
      reservedMicros: 0n,
      actors: [],
      createdAt: 'x',
      closedAt: null,
    });
    await f.store.tasks.close('acme', 'done', f.now.value.toISOString());
    const cases: [Record<string, unknown>, string, RegExp | undefined][] = [
      [
        { capability: 'nope.cap' },
        'unknown_capability',
        /svc capability register --tenant acme --name nope\.cap/,
      ],
      [{ action: 'write' }, 'action_not_allowed', /read/],
      [{ task_id: 'missing' }, 'unknown_task', /svc task list --tenant acme/],
      [{ task_id: 'done' }, 'task_not_active', /closed/],
      [{ capability: 'crm.export' }, 'not_permitted', /svc access request crm\.export/],
      [{ capability: 'crm.sync' }, 'wrong_route', /\/v1\/brokered/],
      [{ amount_usd: 100.5 }, 'budget_exceeded', /raise the budget of task t1 by 0\.5 USD.*--set 100\.5/],
    ];
    let seq = 0;
    for (const [over, code, remedy] of cases) {
      const r = await act(body({ effect_key_step: `s-${code}`, ...over }));
      expect(r.statusCode, code).toBe(403);
      const d = r.json();
      expect(d, code).toMatchObject({
        decision: 'refused',
        code,
        reason: expect.any(String),
        grant: null,
        amount_usd: 0,
      });
      if (remedy) expect(d.remedy, code).toMatch(remedy);
      expect(d.receipt.sequence).toBe(++seq);
      expect(d.receipt.outcome).toBe('refused');
    }
    expect((await f.store.tasks.get('acme', 't1'))!.reservedMicros).toBe(0n);
  });

  it('a refusal claims nothing: fix the cause and send the same step again', async () => {
    const refused = await act(body({ amount_usd: 150 }));
    expect(refused.json().code).toBe('budget_exceeded');
    await f.store.tasks.setBudget('acme', 't1', 200_000_000n);
    expect((await act(body({ amount_usd: 150 }))).statusCode).toBe(200);
  });

  it('policy: no policy set denies with a remedy; @reason and @remedy of a forbid become the refusal', async () => {
    // No command removes a policy: the row is taken away by hand, and put back before the next
    // version is stored (the history keeps every version number, so none is used twice).
    const stored = f.store.db.prepare("SELECT * FROM policies WHERE tenant_id = 'acme'").get();
    f.store.db.prepare("DELETE FROM policies WHERE tenant_id = 'acme'").run();
    const bump = () =>
      f.store.db
        .prepare("UPDATE tenants SET registry_version = registry_version + 1 WHERE id = 'acme'")
        .run();
    bump();
    const none = (await act(body({ effect_key_step: 'p1' }))).json();
    expect(none).toMatchObject({ code: 'no_policy', remedy: expect.stringMatching(/svc policy set/) });
    f.store.db
      .prepare(
        'INSERT INTO policies (tenant_id, version, text, updated_at) VALUES (@tenant_id, @version, @text, @updated_at)',
      )
      .run(stored);
    bump();
    await f.store.policies.set(
      'acme',
      `permit (principal, action, resource);
@reason("reads over 1 USD need a cheaper plan")
@remedy("lower amount_usd to 1 or less")
forbid (principal, action == Action::"read", resource) when { context.amount_micros > 1000000 };`,
      f.now.value.toISOString(),
    );
    const denied = (await act(body({ effect_key_step: 'p2' }))).json();
    expect(denied).toMatchObject({
      code: 'policy_denied',
      reason: 'reads over 1 USD need a cheaper plan',
      remedy: 'lower amount_usd to 1 or less',
    });
    expect((await act(body({ effect_key_step: 'p3', amount_usd: 1 }))).statusCode).toBe(200);
  });

  it('a permission revoked on the data dir is not honoured by the next decision', async () => {
    expect((await act(body({ effect_key_step: 'r1' }))).statusCode).toBe(200);
    await f.store.permissions.revoke('acme', 'bot', 'crm.read');
    expect((await act(body({ effect_key_step: 'r2' }))).json().code).toBe('not_permitted');
  });

  it('another tenant never sees this tenant’s tasks or capabilities', async () => {
    await f.store.actors.add({
      tenantId: 'other',
      id: 'obot',
      kind: 'agent',
      roles: [],
      managerId: 'olga',
      certSubject: null,
      displayName: null,
      createdAt: 'x',
    });
    const obot = await f.token('other', 'obot');
    const r = await act(body({ tenant_id: 'other', actor_id: 'obot' }), '/v1/action', obot);
    expect(r.json()).toMatchObject({ decision: 'refused', code: 'unknown_capability' });
    await register(f.store, 'other', {
      caps: [capability('other', 'crm.read')],
      grants: [['obot', 'crm.read']],
    });
    expect((await act(body({ tenant_id: 'other', actor_id: 'obot' }), '/v1/action', obot)).json().code).toBe(
      'unknown_task',
    );
  });

  it('an agent not assigned to the task is refused', async () => {
    await f.store.actors.add({
      tenantId: 'acme',
      id: 'bot2',
      kind: 'agent',
      roles: [],
      managerId: 'alice',
      certSubject: null,
      displayName: null,
      createdAt: 'x',
    });
    await f.store.permissions.grant({
      tenantId: 'acme',
      actorId: 'bot2',
      capability: 'crm.read',
      grantedAt: 'x',
    });
    const r = await act(body({ actor_id: 'bot2' }), '/v1/action', await f.token('acme', 'bot2'));
    expect(r.json().code).toBe('task_not_assigned');
  });

  it('POST /v1/federate is 403 "no federated backend" before any decision runs', async () => {
    const r = await act(body(), '/v1/federate');
    expect(r.statusCode).toBe(403);
    expect(r.json()).toEqual({ code: 'no_federated_backend', reason: 'no federated backend' });
    expect((await act({ anything: true }, '/v1/federate')).statusCode).toBe(403);
    // The body is never read, so no body turns the answer into a 400, 413 or 415.
    const bodies: [string | undefined, string | undefined][] = [
      [undefined, undefined],
      ['application/json', ''],
      ['application/json', '{"a":'],
      ['application/x-www-form-urlencoded', ''],
      ['application/x-www-form-urlencoded', 'a=1&b'],
      ['text/plain', 'hello'],
      ['application/octet-stream', '\u0000\u00ff'],
      ['application/json', `{"intent":"${'x'.repeat(2 * 1024 * 1024)}"}`],
    ];
    for (const [type, payload] of bodies) {
      const r2 = await f.app.inject({
        method: 'POST',
        url: '/v1/federate',
        headers: { authorization: `Bearer ${bot}`, ...(type ? { 'content-type': type } : {}) },
        ...(payload !== undefined ? { payload } : {}),
      });
      expect(r2.statusCode, `${type} ${payload?.slice(0, 20)}`).toBe(403);
      expect(r2.json().code).toBe('no_federated_backend');
    }
    // Still after authentication: without a credential the answer is 401.
    const anonymous = await f.app.inject({
      method: 'POST',
      url: '/v1/federate',
      headers: { 'content-type': 'text/plain' },
      payload: 'hello',
    });
    expect(anonymous.statusCode).toBe(401);
    expect(journalSize()).toBe(0);
  });

  it('concurrent decisions never overspend and claim an effect key at most once', async () => {
    await register(f.store, 'acme', {
      policy: null,
      tasks: [{ id: 'race', sponsor: 'alice', budget: 100_000_000n, actors: ['bot'] }],
    });
    const spend = await Promise.all(
      Array.from({ length: 40 }, (_, i) =>
        act(body({ task_id: 'race', effect_key_step: `k${i}`, amount_usd: 10 })),
      ),
    );
    expect(spend.filter((r) => r.statusCode === 200)).toHaveLength(10);
    expect(spend.filter((r) => r.statusCode === 403).every((r) => r.json().code === 'budget_exceeded')).toBe(
      true,
    );
    expect((await f.store.tasks.get('acme', 'race'))!.reservedMicros).toBe(100_000_000n);

    await f.store.tasks.setBudget('acme', 'race', 1_000_000_000n);
    const same = await Promise.all(
      Array.from({ length: 20 }, () =>
        act(body({ task_id: 'race', effect_key_step: 'once', amount_usd: 1 })),
      ),
    );
    expect(same.filter((r) => r.statusCode === 200)).toHaveLength(1);
    expect(same.filter((r) => r.statusCode === 409)).toHaveLength(19);
  });

  it('a failure inside the decision is 503 saying nothing was committed, and leaves no trace', async () => {
    expect((await act(body({ effect_key_step: 'ok' }))).statusCode).toBe(200);
    // Break the grant table behind the pipeline's back: the allow cannot be recorded.
    f.store.db.exec('ALTER TABLE grants RENAME TO grants_gone');
    const r = await act(body({ effect_key_step: 'boom' }));
    expect(r.statusCode, r.body).toBe(503);
    expect(r.json()).toMatchObject({
      code: 'unavailable',
      reason: expect.stringMatching(/nothing was committed or executed/),
    });
    expect(JSON.stringify(r.json())).not.toMatch(/grants|SQLITE|no such table/);
    expect(journalSize()).toBe(1);
    expect((await f.store.tasks.get('acme', 't1'))!.reservedMicros).toBe(1_500_000n);
    f.store.db.exec('ALTER TABLE grants_gone RENAME TO grants');
    expect((await act(body({ effect_key_step: 'boom' }))).statusCode).toBe(200);
  });
});
