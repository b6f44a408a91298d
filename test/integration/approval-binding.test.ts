import { createHash } from 'node:crypto';
import type { FastifyInstance } from 'fastify';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { buildDaemon, daemonOpenApi } from '../../src/daemon/app.js';
import { daemonDeps } from '../../src/daemon/wiring.js';
import { cjson } from '../../src/evidence/cjson.js';
import { parseIntegrationDocument } from '../../src/integration/document.js';
import { downstream, type Downstream } from '../helpers/downstream.js';
import { fixture, type Fixture } from '../helpers/fixture.js';
import { addApprover } from '../helpers/approver.js';
import { watchConformance } from '../helpers/openapi-conformance.js';
import { capability, register } from '../helpers/registry.js';

const PAY = 'pay-tok-5e11c0';

const doc = (url: string) => `
surfaces:
  - id: pay
    adapter: http
    base_url: ${url}
    credential_ref: env:SVC_TEST_PAY
    auth: { type: bearer }
    operations:
      refunds.create:
        method: POST
        path: /refunds
        headers: { Idempotency-Key: "{step}" }
        effect_id: /id
      refunds.create_priced:
        method: POST
        path: /refunds
        effect_id: /id
        amount: { param: /amount_cents, unit: cents }
      charges.create:
        method: POST
        path: /charges
        amount: { param: /charge/usd, unit: usd }
`;

const refund = (over: Record<string, unknown> = {}) => ({
  tenant_id: 'acme',
  actor_id: 'bot',
  capability: 'pay.refund',
  action: 'write',
  task_id: 't1',
  effect_key_step: 'refund-42',
  amount_usd: 0.01,
  intent: 'refund 1 cent to customer 42',
  params: { step: 'refund-42', amount_cents: 99999999, destination: 'acct-mallory' },
  ...over,
});

describe('an approval shows the request it binds (the hidden-params refund)', () => {
  let f: Fixture;
  let ds: Downstream;
  let app: FastifyInstance;
  let bot: string;
  let bob: string;
  let conformance: ReturnType<typeof watchConformance>;

  const call = async (token: string, method: 'GET' | 'POST', url: string, payload?: object) => {
    const r = await app.inject({ method, url, headers: { authorization: `Bearer ${token}` }, payload });
    return { status: r.statusCode, json: r.json() };
  };
  const reserved = async () => (await f.store.tasks.get('acme', 't1'))!.reservedMicros;

  beforeEach(async () => {
    process.env.SVC_TEST_PAY = PAY;
    f = await fixture();
    ds = await downstream();
    const integration = parseIntegrationDocument(doc(ds.url), 'ops.yaml');
    const deps = daemonDeps(f.dir, f.store, { authMode: 'token', clock: () => f.now.value, integration });
    app = buildDaemon(deps, { logger: false });
    conformance = watchConformance(app, daemonOpenApi(deps));
    await app.ready();
    const brokered = (name: string, operation: string) =>
      capability('acme', name, {
        custody: 'brokered',
        surfaceId: 'pay',
        operation,
        actions: ['write'],
        costMicros: 0n,
        irreversible: true,
        tier: 5,
      });
    await register(f.store, 'acme', {
      caps: [
        brokered('pay.refund', 'refunds.create'),
        brokered('pay.refund_priced', 'refunds.create_priced'),
        brokered('pay.charge', 'charges.create'),
      ],
      grants: [
        ['bot', 'pay.refund'],
        ['bot', 'pay.refund_priced'],
        ['bot', 'pay.charge'],
      ],
      tasks: [{ id: 't1', sponsor: 'alice', budget: 2_000_000_000_000n, actors: ['bot'] }],
    });
    await addApprover(f.store, 'bob');
    bot = await f.token('acme', 'bot');
    bob = await f.token('acme', 'bob');
  });
  afterEach(async () => {
    expect(conformance.violations()).toEqual([]);
    await app.close();
    await ds.close();
    await f.close();
  });

  it('the approver sees the hidden params and the provider request they make, and the digest is of them', async () => {
    const deferred = await call(bot, 'POST', '/v1/brokered', refund());
    expect(deferred.status).toBe(202);
    const id = deferred.json.approval.approval_id as string;

    const shown = await call(bob, 'GET', `/v1/approvals/${id}`);
    expect(shown.status).toBe(200);
    const a = shown.json;
    expect(a).toMatchObject({
      amount_usd: 0.01,
      amount_source: 'requester_estimate',
      params: { step: 'refund-42', amount_cents: 99999999, destination: 'acct-mallory' },
      provider_request: {
        surface_id: 'pay',
        operation: 'refunds.create',
        method: 'POST',
        url: `${ds.url}/refunds`,
        headers: { 'idempotency-key': 'refund-42', 'content-type': 'application/json' },
        credential_header: 'authorization',
        body: '{"amount_cents":99999999,"destination":"acct-mallory"}',
      },
    });
    // What the view shows is what the digest binds: recomputed here, not read back.
    expect(createHash('sha256').update(cjson(a.request)).digest('hex')).toBe(a.request_digest);
    expect(a.request.params).toEqual(a.params);
    expect(JSON.stringify(a)).not.toContain(PAY);
    // The list shows the same.
    const listed = await call(bob, 'GET', '/v1/approvals?status=pending');
    expect(listed.json.items).toEqual([a]);

    // After approval the provider receives exactly the body the approver was shown.
    expect((await call(bob, 'POST', `/v1/approvals/${id}/decision`, { decision: 'approve' })).status).toBe(
      200,
    );
    const resumed = await call(bot, 'POST', '/v1/brokered/resume', refund());
    expect(resumed.status).toBe(200);
    expect(ds.calls).toHaveLength(1);
    expect(ds.calls[0]!.body).toBe(a.provider_request.body);
    expect(`${ds.url}${ds.calls[0]!.url}`).toBe(a.provider_request.url);
    expect(ds.calls[0]!.headers['idempotency-key']).toBe('refund-42');
  });

  it('a param-derived amount is the one approved and reserved; a different amount_usd is refused', async () => {
    const body = refund({ capability: 'pay.refund_priced', effect_key_step: 'priced-1' });
    const lied = await call(bot, 'POST', '/v1/brokered', body);
    expect(lied.status).toBe(400);
    expect(lied.json).toMatchObject({ code: 'invalid_request', field: 'amount_usd' });
    expect(lied.json.reason).toContain('999999.99');
    expect(ds.calls).toHaveLength(0);

    const { amount_usd: _, ...honest } = body;
    const deferred = await call(bot, 'POST', '/v1/brokered', honest);
    expect(deferred.status).toBe(202);
    const id = deferred.json.approval.approval_id as string;
    const a = (await call(bob, 'GET', `/v1/approvals/${id}`)).json;
    expect(a).toMatchObject({ amount_usd: 999999.99, amount_source: 'params' });
    expect(a.request).not.toHaveProperty('amount_usd');
    expect(createHash('sha256').update(cjson(a.request)).digest('hex')).toBe(a.request_digest);

    expect((await call(bob, 'POST', `/v1/approvals/${id}/decision`, { decision: 'approve' })).status).toBe(
      200,
    );
    expect(await reserved()).toBe(0n);
    const resumed = await call(bot, 'POST', '/v1/brokered/resume', honest);
    expect(resumed.status).toBe(200);
    expect(resumed.json.amount_usd).toBe(999999.99);
    expect(await reserved()).toBe(999_999_990_000n);
    expect(JSON.parse(ds.calls[0]!.body)).toMatchObject({ amount_cents: 99999999 });

    // Stating the same amount is accepted.
    const same = await call(bot, 'POST', '/v1/brokered', {
      ...body,
      effect_key_step: 'priced-2',
      amount_usd: 999999.99,
    });
    expect(same.status).toBe(202);
  });

  it('a missing or malformed amount param is a 400 naming it; nothing is decided', async () => {
    const cases: [Record<string, unknown>, string][] = [
      [{ destination: 'x' }, 'params.amount_cents'],
      [{ amount_cents: 1.5 }, 'params.amount_cents'],
      [{ amount_cents: '100' }, 'params.amount_cents'],
      [{ amount_cents: -1 }, 'params.amount_cents'],
    ];
    let n = 0;
    for (const [params, field] of cases) {
      const r = await call(
        bot,
        'POST',
        '/v1/brokered',
        refund({
          capability: 'pay.refund_priced',
          effect_key_step: `bad-${++n}`,
          params,
          amount_usd: undefined,
        }),
      );
      expect(r.status, JSON.stringify(params)).toBe(400);
      expect(r.json.field).toBe(field);
    }
    const nested = await call(
      bot,
      'POST',
      '/v1/brokered',
      refund({ capability: 'pay.charge', params: { charge: { usd: 1.2345678 } }, amount_usd: undefined }),
    );
    expect(nested.status).toBe(400);
    expect(nested.json.field).toBe('params.charge.usd');
    const usd = await call(
      bot,
      'POST',
      '/v1/brokered',
      refund({ capability: 'pay.charge', params: { charge: { usd: 12.5 } }, amount_usd: undefined }),
    );
    expect(usd.status).toBe(202);
    const shown = await call(bob, 'GET', `/v1/approvals/${usd.json.approval.approval_id as string}`);
    expect(shown.json).toMatchObject({ amount_usd: 12.5, amount_source: 'params' });
    expect(await f.store.db.prepare('SELECT count(*) AS n FROM intents').get()).toEqual({ n: 1 });
  });

  it('an amount declaration that is not a JSON pointer or a unit is refused when the document loads', () => {
    const bad = (amount: string) => `
surfaces:
  - id: pay
    adapter: http
    base_url: http://127.0.0.1:9
    credential_ref: env:X
    auth: { type: bearer }
    operations:
      op: { method: POST, path: /x, amount: ${amount} }
`;
    expect(() => parseIntegrationDocument(bad('{ param: amount_cents, unit: cents }'), 'ops.yaml')).toThrow(
      /operations\.op\.amount\.param: expected a JSON pointer/,
    );
    expect(() => parseIntegrationDocument(bad('{ param: /a, unit: euros }'), 'ops.yaml')).toThrow(
      /operations\.op\.amount\.unit: /,
    );
    expect(() => parseIntegrationDocument(bad('{ param: /a, unit: cents, scale: 2 }'), 'ops.yaml')).toThrow(
      /unknown field/,
    );
  });
});
