import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { fixture, type Fixture } from '../helpers/fixture.js';
import { as, cast, Seed, type Cast } from '../helpers/seed.js';

describe('execution constraints (app.inject, real SQLite)', () => {
  let f: Fixture;
  let t: Cast;
  let seed: Seed;
  const url = (id: string) => `/v1/task/${id}/execution-constraints`;
  const install = (token: string, id: string, plan: unknown) =>
    as(f, token, url(id), { method: 'POST', body: plan });
  const plan = {
    capabilities: ['crm.read'],
    actors: ['bot', 'bot2'],
    max_amount_usd_per_action: 2.5,
    max_total_usd: 10,
    max_actions: 5,
    not_before: '2026-06-01T00:00:00+02:00',
    not_after: '2026-07-01T00:00:00Z',
  };

  beforeEach(async () => {
    f = await fixture();
    t = await cast(f);
    seed = new Seed(f.store.db, () => f.now.value);
    seed.capability('acme', 'crm.read');
    seed.task('acme', 'root', { sponsor: 'carol', actors: ['bot', 'bot2'] });
    seed.task('acme', 'child', { sponsor: 'erin', parent: 'root', actors: ['bot'] });
    seed.task('other', 'root', { sponsor: 'olga' });
  });
  afterEach(async () => f.close());

  it('the sponsor installs the plan once; it activates the task and never changes (409)', async () => {
    const before = await as(f, t.carol, url('root'));
    expect(before.body).toMatchObject({ task_id: 'root', root_id: 'root', installed: false, plan: null });

    const r = await install(t.carol, 'root', plan);
    expect(r.status).toBe(201);
    expect(r.body).toMatchObject({
      installed: true,
      installed_by: 'carol',
      installed_at: '2026-06-01T12:00:00.000Z',
      // date-times are stored normalised to UTC
      plan: { ...plan, not_before: '2026-05-31T22:00:00.000Z', not_after: '2026-07-01T00:00:00.000Z' },
      ledger: { visibility: 'full', admitted_actions: 0, admitted_total_usd: 0, admissions: [] },
    });
    const task = await as(f, t.carol, '/v1/task/root');
    expect(task.body).toMatchObject({ status: 'active', constraints_installed: true });
    expect((await as(f, t.erin, '/v1/task/child')).body.constraints_installed).toBe(true);

    const again = await install(t.carol, 'root', { max_actions: 100 });
    expect(again.status).toBe(409);
    expect(again.body).toMatchObject({
      code: 'constraints_installed',
      reason: expect.stringMatching(/never be changed/),
    });
    expect((await as(f, t.carol, url('root'))).body.plan.max_actions).toBe(5);
  });

  it('only the registered human sponsor installs: others 403, unreadable or foreign tasks 404', async () => {
    for (const who of ['alice', 'bot'] as const) {
      const r = await install(t[who], 'root', plan);
      expect(r.status, who).toBe(403);
      expect(r.body.code).toBe('not_sponsor');
    }
    expect((await install(t.bob, 'root', plan)).status).toBe(404);
    expect((await install(t.olga, 'child', plan)).status).toBe(404);
    // olga's own "root" is another task: installing there leaves acme's alone
    expect((await install(t.olga, 'root', {})).status).toBe(201);
    expect((await as(f, t.carol, url('root'))).body.installed).toBe(false);
  });

  it('refuses a non-root, a task that is not draft, and a root with admissions (409)', async () => {
    const child = await install(t.erin, 'child', plan);
    expect(child.status).toBe(409);
    expect(child.body).toMatchObject({ code: 'not_root', remedy: expect.stringMatching(/root/) });

    seed.task('acme', 'running', { sponsor: 'carol', status: 'active' });
    expect((await install(t.carol, 'running', plan)).body.code).toBe('task_not_draft');

    seed.task('acme', 'used', { sponsor: 'carol' });
    seed.admission('acme', {
      rootId: 'used',
      taskId: 'used',
      actorId: 'bot',
      capability: 'crm.read',
      amountMicros: 1n,
    });
    const used = await install(t.carol, 'used', plan);
    expect(used.status).toBe(409);
    expect(used.body.code).toBe('task_used');
    expect((await as(f, t.carol, '/v1/task/used')).body.status).toBe('draft');
  });

  it('validates the plan: closed, money as USD, names that exist, a window that is not empty', async () => {
    const cases: [unknown, string][] = [
      [{ ...plan, extra: 1 }, 'extra'],
      [{ max_total_usd: 1.0000001 }, 'max_total_usd'],
      [{ max_total_usd: -1 }, 'max_total_usd'],
      [{ max_amount_usd_per_action: '5' }, 'max_amount_usd_per_action'],
      [{ max_actions: 0 }, 'max_actions'],
      [{ max_actions: 1.5 }, 'max_actions'],
      [{ capabilities: [] }, 'capabilities'],
      [{ capabilities: ['crm.read', 'crm.read'] }, 'capabilities'],
      [{ capabilities: ['crm.write'] }, 'capabilities.0'],
      [{ actors: ['bot', 'nobody'] }, 'actors.1'],
      [{ not_before: 'tomorrow' }, 'not_before'],
      [{ not_before: '2026-07-01T00:00:00Z', not_after: '2026-07-01T00:00:00Z' }, 'not_after'],
      [[], 'body'],
    ];
    for (const [body, field] of cases) {
      const r = await install(t.carol, 'root', body);
      expect(r.status, JSON.stringify(body)).toBe(400);
      expect(r.body.field, JSON.stringify(body)).toBe(field);
    }
    expect((await as(f, t.carol, '/v1/task/root')).body.status).toBe('draft');
  });

  it('operators and the sponsor see the whole ledger; other task readers only their own reservation ids', async () => {
    expect((await install(t.carol, 'root', plan)).status).toBe(201);
    const mine = seed.admission('acme', {
      rootId: 'root',
      taskId: 'child',
      actorId: 'bot',
      capability: 'crm.read',
      amountMicros: 2_500_000n,
    });
    const theirs = seed.admission('acme', {
      rootId: 'root',
      taskId: 'root',
      actorId: 'bot2',
      capability: 'crm.read',
      amountMicros: 1_250_000n,
    });

    for (const who of ['carol', 'alice'] as const) {
      const full = await as(f, t[who], url('root'));
      expect(full.body.ledger).toMatchObject({
        visibility: 'full',
        admitted_actions: 2,
        admitted_total_usd: 3.75,
      });
      expect(full.body.ledger.admissions).toContainEqual({
        reservation_id: mine,
        task_id: 'child',
        actor_id: 'bot',
        capability: 'crm.read',
        amount_usd: 2.5,
        intent_id: expect.stringMatching(/^int_/),
        created_at: '2026-06-01T12:00:00.000Z',
      });
    }
    // the child's reader sees the root's plan, scoped to its own reservations
    const bot = await as(f, t.bot, url('child'));
    expect(bot.body).toMatchObject({
      task_id: 'child',
      root_id: 'root',
      installed: true,
      ledger: { visibility: 'own', reservation_ids: [mine] },
    });
    expect(JSON.stringify(bot.body)).not.toContain(theirs);
    // an auditor reads the task but is not an operator: scoped
    expect((await as(f, t.dave, url('root'))).body.ledger).toEqual({
      visibility: 'own',
      reservation_ids: [],
    });
    // a child's sponsor is not the plan's sponsor
    expect((await as(f, t.erin, url('child'))).body.ledger.visibility).toBe('own');
    expect((await as(f, t.bob, url('root'))).status).toBe(404);
    expect((await as(f, t.oscar, url('child'))).status).toBe(404);
  });
});
