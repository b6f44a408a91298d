import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { fixture, type Fixture } from '../helpers/fixture.js';
import { as, cast, Seed, type Cast } from '../helpers/seed.js';

describe('what a caller holds and may request (app.inject, real SQLite)', () => {
  let f: Fixture;
  let t: Cast;
  let seed: Seed;
  beforeEach(async () => {
    f = await fixture();
    t = await cast(f);
    seed = new Seed(f.store.db, () => f.now.value);
    seed.capability('acme', 'crm.read', { requestable: true, actions: ['read', 'list'] });
    seed.capability('acme', 'crm.write', { requestable: true, tier: 3, costMicros: 250_000n });
    seed.capability('acme', 'mail.send', { requestable: true, irreversible: true });
    seed.capability('acme', 'pay.send', { requestable: false });
    seed.capability('acme', 'files.read', { requestable: true });
    seed.capability('other', 'crm.read', { requestable: true });
    seed.permission('acme', 'bot', 'crm.read');
    seed.entitlement('acme', 'bot', 'mail.send', { expiresAt: '2026-06-01T13:00:00.000Z' });
    seed.entitlement('acme', 'bot', 'crm.write', { expiresAt: '2026-06-01T11:00:00.000Z' });
    seed.entitlement('acme', 'bot', 'files.read', {
      expiresAt: '2026-07-01T00:00:00.000Z',
      revokedAt: '2026-06-01T11:30:00.000Z',
    });
    seed.permission('other', 'oscar', 'crm.read');
  });
  afterEach(async () => f.close());

  const names = async (token: string, url: string) => {
    const r = await as(f, token, url);
    expect(r.status).toBe(200);
    return url === '/v1/catalogue'
      ? (r.body as { name: string }[]).map((c) => c.name)
      : (r.body.capabilities as { name: string }[]).map((c) => c.name);
  };

  it('GET /v1/capabilities lists standing permissions and live entitlements only', async () => {
    const r = await as(f, t.bot, '/v1/capabilities');
    expect(r.body).toEqual({
      tenant_id: 'acme',
      actor_id: 'bot',
      capabilities: [
        { name: 'crm.read', tier: 1, irreversible: false, custody: 'grant', actions: ['read', 'list'] },
        { name: 'mail.send', tier: 1, irreversible: true, custody: 'grant', actions: ['read'] },
      ],
    });
    f.now.value = new Date('2026-06-01T13:00:00.000Z');
    expect(await names(t.bot, '/v1/capabilities')).toEqual(['crm.read']);
    expect(await names(t.bot2, '/v1/capabilities')).toEqual([]);
    expect(await names(t.oscar, '/v1/capabilities')).toEqual(['crm.read']);
  });

  it('GET /v1/catalogue is a plain array of requestable capabilities the caller does not hold', async () => {
    const r = await as(f, t.bot, '/v1/catalogue');
    expect(r.body).toEqual([
      {
        name: 'crm.write',
        tier: 3,
        irreversible: false,
        custody: 'grant',
        actions: ['read'],
        default_amount_usd: 0.25,
      },
      {
        name: 'files.read',
        tier: 1,
        irreversible: false,
        custody: 'grant',
        actions: ['read'],
        default_amount_usd: 1,
      },
    ]);
    expect(await names(t.bot2, '/v1/catalogue')).toEqual([
      'crm.read',
      'crm.write',
      'files.read',
      'mail.send',
    ]);
    f.now.value = new Date('2026-06-01T13:00:00.000Z');
    expect(await names(t.bot, '/v1/catalogue')).toEqual(['crm.write', 'files.read', 'mail.send']);
    expect(await names(t.oscar, '/v1/catalogue')).toEqual([]);
    expect((await f.app.inject('/v1/catalogue')).statusCode).toBe(401);
    const doc = (await as(f, t.alice, '/v1/openapi.json')).body;
    expect(doc.paths['/v1/catalogue'].get.parameters).toEqual([]);
  });
});
