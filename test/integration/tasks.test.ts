import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { fixture, type Fixture } from '../helpers/fixture.js';
import { as, cast, Seed, type Cast } from '../helpers/seed.js';

describe('task read routes (app.inject, real SQLite)', () => {
  let f: Fixture;
  let t: Cast;
  let seed: Seed;
  beforeEach(async () => {
    f = await fixture();
    t = await cast(f);
    seed = new Seed(f.store.db, () => f.now.value);
    seed.task('acme', 'launch', { sponsor: 'carol', actors: ['bot'], budgetMicros: 50_500_000n });
    seed.task('acme', 'launch.sub', { sponsor: 'erin', parent: 'launch', status: 'active' });
    seed.task('acme', 'quiet', { sponsor: 'alice', status: 'closed' });
    seed.task('other', 'launch', { sponsor: 'olga', actors: ['oscar'] });
  });
  afterEach(async () => f.close());

  const ids = async (token: string, url = '/v1/task') => {
    const r = await as(f, token, url);
    expect(r.status).toBe(200);
    return (r.body.items as { task_id: string }[]).map((x) => x.task_id);
  };

  it('shows each caller the tasks it sponsors or works on; operators, administrators and auditors see all', async () => {
    expect(await ids(t.alice)).toEqual(['launch', 'launch.sub', 'quiet']);
    expect(await ids(t.dave)).toEqual(['launch', 'launch.sub', 'quiet']);
    expect(await ids(t.carol)).toEqual(['launch']);
    expect(await ids(t.erin)).toEqual(['launch.sub']);
    expect(await ids(t.bot)).toEqual(['launch']);
    expect(await ids(t.bot2)).toEqual([]);
    expect(await ids(t.bob)).toEqual([]);
    expect(await ids(t.olga)).toEqual(['launch']);
    expect(await ids(t.alice, '/v1/task?status=closed')).toEqual(['quiet']);
  });

  it('reads one task in the wire shape; another tenant’s or an unreadable task is a plain 404', async () => {
    const r = await as(f, t.bot, '/v1/task/launch');
    expect(r.status).toBe(200);
    expect(r.body).toEqual({
      task_id: 'launch',
      title: 'task launch',
      status: 'draft',
      sponsor_id: 'carol',
      parent_id: null,
      root_id: 'launch',
      budget_usd: 50.5,
      reserved_usd: 0,
      remaining_usd: 50.5,
      actors: ['bot'],
      constraints_installed: false,
      created_at: '2026-06-01T12:00:00.000Z',
      closed_at: null,
    });
    expect((await as(f, t.erin, '/v1/task/launch.sub')).body.root_id).toBe('launch');
    for (const [token, id] of [
      [t.bot2, 'launch'],
      [t.olga, 'quiet'],
      [t.oscar, 'launch.sub'],
      [t.alice, 'nothing'],
    ] as const) {
      const miss = await as(f, token, `/v1/task/${id}`);
      expect(miss.status).toBe(404);
      expect(miss.body).toEqual({ code: 'not_found', reason: 'no such task' });
    }
    // Same id in two tenants: each sees its own.
    expect((await as(f, t.olga, '/v1/task/launch')).body.sponsor_id).toBe('olga');
  });

  it('pages with limit 1..200 and an opaque cursor; bad limits and cursors are 400 naming the field', async () => {
    for (let i = 0; i < 205; i++)
      seed.task('acme', `bulk-${String(i).padStart(3, '0')}`, { sponsor: 'alice' });
    const first = await as(f, t.alice, '/v1/task?limit=1');
    expect(first.body.items).toHaveLength(1);
    expect(first.body.next_cursor).toEqual(expect.any(String));
    const second = await as(f, t.alice, `/v1/task?limit=1&cursor=${first.body.next_cursor}`);
    expect(second.body.items[0].task_id).not.toBe(first.body.items[0].task_id);

    const big = await as(f, t.alice, '/v1/task?limit=200');
    expect(big.body.items).toHaveLength(200);
    const rest = await as(f, t.alice, `/v1/task?limit=200&cursor=${big.body.next_cursor}`);
    expect(rest.body.items).toHaveLength(208 - 200);
    expect(rest.body.next_cursor).toBeNull();
    const all = [...big.body.items, ...rest.body.items].map((x: { task_id: string }) => x.task_id);
    expect(new Set(all).size).toBe(208);

    expect((await as(f, t.alice, '/v1/task')).body.items).toHaveLength(50);

    for (const [query, field] of [
      ['limit=0', 'limit'],
      ['limit=201', 'limit'],
      ['limit=abc', 'limit'],
      ['limit=1.5', 'limit'],
      ['cursor=garbage!', 'cursor'],
      ['cursor=e30', 'cursor'],
      [`cursor=${Buffer.from('{"s":"tasks","k":7}').toString('base64url')}`, 'cursor'],
      [`cursor=${Buffer.from('{"s":"receipts","k":"a"}').toString('base64url')}`, 'cursor'],
      ['status=open', 'status'],
      ['colour=red', 'colour'],
    ]) {
      const r = await as(f, t.alice, `/v1/task?${query}`);
      expect(r.status, query).toBe(400);
      expect(r.body.field, query).toBe(field);
    }
  });

  it('answers the earlier variant’s /v1/work names as deprecated aliases', async () => {
    const list = await as(f, t.carol, '/v1/work');
    expect(list.status).toBe(200);
    expect(list.body).toEqual((await as(f, t.carol, '/v1/task')).body);
    expect(list.headers.link).toBe('</v1/task>; rel="successor-version"');
    const one = await as(f, t.carol, '/v1/work/launch');
    expect(one.body).toEqual((await as(f, t.carol, '/v1/task/launch')).body);
    expect((await as(f, t.bot2, '/v1/work/launch')).status).toBe(404);

    const doc = (await as(f, t.alice, '/v1/openapi.json')).body;
    expect(doc.paths['/v1/work'].get.deprecated).toBe(true);
    expect(doc.paths['/v1/work/{id}'].get.deprecated).toBe(true);
    expect(doc.paths['/v1/task'].get.deprecated).toBeUndefined();
  });

  it('needs a credential', async () => {
    expect((await f.app.inject('/v1/task')).statusCode).toBe(401);
    expect((await f.app.inject('/v1/task/launch')).statusCode).toBe(401);
  });
});
