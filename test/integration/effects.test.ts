import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { fixture, type Fixture } from '../helpers/fixture.js';
import { capability, register } from '../helpers/registry.js';

describe('grants and observed effects (app.inject, real SQLite)', () => {
  let f: Fixture;
  let bot: string;
  let app: string;
  const post = (url: string, payload: object, token: string) =>
    f.app.inject({ method: 'POST', url, headers: { 'x-svc-token': token }, payload });
  const decide = (cap: string, step: string) =>
    post(
      '/v1/action',
      {
        tenant_id: 'acme',
        actor_id: 'bot',
        capability: cap,
        action: 'read',
        task_id: 't1',
        effect_key_step: step,
      },
      bot,
    );

  beforeEach(async () => {
    f = await fixture();
    bot = await f.token('acme', 'bot');
    await f.store.actors.add({
      tenantId: 'acme',
      id: 'crm-app',
      kind: 'service',
      roles: [],
      managerId: null,
      certSubject: null,
      displayName: null,
      createdAt: 'x',
    });
    app = await f.token('acme', 'crm-app');
    await register(f.store, 'acme', {
      caps: [capability('acme', 'crm.read'), capability('acme', 'notes.write', { custody: 'pass_through' })],
      grants: [
        ['bot', 'crm.read'],
        ['bot', 'notes.write'],
      ],
      tasks: [{ id: 't1', sponsor: 'alice', budget: 100_000_000n }],
    });
  });
  afterEach(async () => f.close());

  it('a grant is presented once, then its effect is journaled once, both by the actor it was minted for', async () => {
    const d = (await decide('crm.read', 'g1')).json();
    const grantId = d.grant.grant_id as string;
    const presented = await post('/v1/grants/present', { grant_id: grantId }, bot);
    expect(presented.statusCode).toBe(200);
    expect(presented.json()).toMatchObject({
      grant_id: grantId,
      intent_id: d.intent_id,
      actor_id: 'bot',
      presented_by: 'bot',
      capability: 'crm.read',
      action: 'read',
    });
    expect((await post('/v1/grants/present', { grant_id: grantId }, bot)).json().code).toBe(
      'grant_presented',
    );
    const receipt = await post(
      '/v1/grants/receipt',
      { grant_id: grantId, status: 'succeeded', effect_id: 'contact-42', detail: { rows: 1 } },
      bot,
    );
    expect(receipt.statusCode).toBe(200);
    expect(receipt.json()).toMatchObject({
      intent_id: d.intent_id,
      outcome: 'succeeded',
      effect_id: 'contact-42',
      observed: true,
      sequence: 2,
    });
    expect((await post('/v1/grants/receipt', { grant_id: grantId, status: 'failed' }, bot)).statusCode).toBe(
      409,
    );
  });

  it('receipt before present is refused to the grant actor', async () => {
    const grantId = (await decide('crm.read', 'g0')).json().grant.grant_id as string;
    const r = await post('/v1/grants/receipt', { grant_id: grantId, status: 'succeeded' }, bot);
    expect(r.statusCode).toBe(403);
    expect(r.json().code).toBe('grant_not_presented');
  });

  it("no other actor of the tenant can present another actor's grant or report its effect; the answer equals an unknown grant's", async () => {
    const grantId = (await decide('crm.read', 'g3')).json().grant.grant_id as string;
    await f.store.actors.add({
      tenantId: 'acme',
      id: 'audrey',
      kind: 'human',
      roles: ['auditor'],
      managerId: null,
      certSubject: null,
      displayName: null,
      createdAt: 'x',
    });
    const auditor = await f.token('acme', 'audrey');
    const unknown = 'grt_' + 'f'.repeat(32);
    const strip = (body: Record<string, unknown>) => {
      const { request_id: _r, ...rest } = body;
      return JSON.stringify(rest).replaceAll(grantId, '<id>').replaceAll(unknown, '<id>');
    };
    for (const token of [app, auditor]) {
      for (const url of ['/v1/grants/present', '/v1/grants/receipt']) {
        const body = url.endsWith('present') ? {} : { status: 'succeeded' };
        const other = await post(url, { grant_id: grantId, ...body }, token);
        const none = await post(url, { grant_id: unknown, ...body }, token);
        expect(other.statusCode).toBe(404);
        expect(strip(other.json())).toBe(strip(none.json()));
      }
    }
    // the grant is untouched: its own actor still presents it and reports the effect
    expect((await post('/v1/grants/present', { grant_id: grantId }, bot)).statusCode).toBe(200);
    expect(
      (await post('/v1/grants/receipt', { grant_id: grantId, status: 'succeeded' }, bot)).statusCode,
    ).toBe(200);
    // and once presented, another actor still learns nothing about it
    expect((await post('/v1/grants/present', { grant_id: grantId }, app)).statusCode).toBe(404);
  });

  it('an expired grant cannot be presented; unknown and other-tenant grants are 404', async () => {
    const grantId = (await decide('crm.read', 'g2')).json().grant.grant_id as string;
    f.now.value = new Date(f.now.value.getTime() + 5 * 60_000);
    const r = await post('/v1/grants/present', { grant_id: grantId }, bot);
    expect(r.statusCode).toBe(403);
    expect(r.json().code).toBe('grant_expired');
    expect((await post('/v1/grants/present', { grant_id: 'grt_' + '0'.repeat(32) }, app)).statusCode).toBe(
      404,
    );
    const olga = await f.token('other', 'olga');
    expect((await post('/v1/grants/present', { grant_id: grantId }, olga)).statusCode).toBe(404);
    expect((await post('/v1/grants/present', { grant_id: 'nope' }, app)).json().field).toBe('grant_id');
  });

  it('observe journals a pass_through effect, labelled observed; only once, only by the intent actor', async () => {
    const d = (await decide('notes.write', 'o1')).json();
    expect(d.decision).toBe('allowed');
    expect(d.grant).toBeNull();
    expect(
      (await post('/v1/observe', { intent_id: d.intent_id, status: 'succeeded' }, app)).json().code,
    ).toBe('not_intent_actor');
    const o = await post(
      '/v1/observe',
      { intent_id: d.intent_id, status: 'succeeded', effect_id: 'note-7' },
      bot,
    );
    expect(o.statusCode).toBe(200);
    expect(o.json()).toMatchObject({ observed: true, effect_id: 'note-7', outcome: 'succeeded' });
    expect((await post('/v1/observe', { intent_id: d.intent_id, status: 'succeeded' }, bot)).statusCode).toBe(
      409,
    );
    const granted = (await decide('crm.read', 'o2')).json();
    const wrong = await post('/v1/observe', { intent_id: granted.intent_id, status: 'succeeded' }, bot);
    expect(wrong.statusCode).toBe(409);
    expect(wrong.json().code).toBe('not_pass_through');
    const row = f.store.db
      .prepare("SELECT kind, record FROM journal WHERE tenant_id = 'acme' AND sequence = 2")
      .get() as { kind: string; record: string };
    expect(row.kind).toBe('observation');
    expect(JSON.parse(row.record)).toMatchObject({ observed: true, effect_id: 'note-7' });
  });
});
