import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MAX_JSON_DEPTH } from '../../src/core/json-text.js';
import { concreteUrl, fullDaemon, jsonBodyRoutes, type FullDaemon } from '../helpers/full-daemon.js';

/** Issue 10 item 4: hostile JSON is a 400 naming the field on every JSON route, never a 500. */
describe('the JSON body guard on every JSON POST route', () => {
  let d: FullDaemon;
  const post = (url: string, payload: string) =>
    d.app.inject({
      method: 'POST',
      url,
      headers: { authorization: `Bearer ${d.tokens.alice}`, 'content-type': 'application/json' },
      payload,
    });
  const rows = () =>
    (
      d.f.store.db
        .prepare('SELECT (SELECT count(*) FROM journal) + (SELECT count(*) FROM intents) AS n')
        .get() as {
        n: number;
      }
    ).n;

  beforeAll(async () => {
    d = await fullDaemon();
  });
  afterAll(async () => d.close());

  it('covers every JSON route of the table (the audit counted 16)', () => {
    expect(jsonBodyRoutes(d.routes).length).toBeGreaterThanOrEqual(16);
  });

  it('refuses nesting 100,000 deep inside params with a 400 naming the path, not a 500', async () => {
    const before = rows();
    const deep = `{"params":{"a":${'['.repeat(100_000)}${']'.repeat(100_000)}}}`;
    for (const route of jsonBodyRoutes(d.routes)) {
      const r = await post(concreteUrl(route), deep);
      expect(r.statusCode, route.url).toBe(400);
      const body = r.json();
      expect(body.code).toBe('invalid_request');
      expect(body.field).toBe(`params.a${'.0'.repeat(MAX_JSON_DEPTH - 2)}`);
      expect(body.reason).toMatch(/^params\.a\.0.*: expected JSON nested at most 32 levels deep$/);
    }
    expect(rows()).toBe(before);
  });

  it('refuses 1e309 inside params with a 400 naming its path', async () => {
    for (const route of jsonBodyRoutes(d.routes)) {
      const r = await post(concreteUrl(route), '{"params":{"amounts":[1, -1e309]},"x":1}');
      expect(r.statusCode, route.url).toBe(400);
      expect(r.json()).toMatchObject({ code: 'invalid_request', field: 'params.amounts.1' });
      expect(r.json().reason).toMatch(/^params\.amounts\.1: expected a finite number/);
    }
  });

  it('refuses duplicate keys, invalid UTF-8 and __proto__, naming the field', async () => {
    const url = '/v1/action';
    const dup = await post(url, '{"tenant_id":"acme","params":{"to":"a","to":"b"}}');
    expect(dup.statusCode).toBe(400);
    expect(dup.json()).toMatchObject({ field: 'params.to' });
    const utf = await d.app.inject({
      method: 'POST',
      url,
      headers: { authorization: `Bearer ${d.tokens.alice}`, 'content-type': 'application/json' },
      payload: Buffer.from([0x7b, 0x22, 0x61, 0x22, 0x3a, 0x22, 0xc3, 0x28, 0x22, 0x7d]),
    });
    expect(utf.statusCode).toBe(400);
    expect(utf.json()).toMatchObject({ field: 'body', reason: expect.stringMatching(/UTF-8/) });
    const proto = await post(url, '{"params":{"__proto__":{"admin":true}}}');
    expect(proto.statusCode).toBe(400);
    expect(proto.json()).toMatchObject({ field: 'params.__proto__' });
    const ctor = await post(url, '{"params":{"constructor":{"prototype":{"x":1}}}}');
    expect(ctor.statusCode).toBe(400);
    expect(ctor.json()).toMatchObject({ field: 'params.constructor.prototype' });
  });

  it('still accepts nesting at the limit and ordinary numbers', async () => {
    const depth = MAX_JSON_DEPTH - 2;
    const params = `${'['.repeat(depth)}1.5e308${']'.repeat(depth)}`;
    const r = await post(
      '/v1/action',
      JSON.stringify({
        tenant_id: 'acme',
        actor_id: 'bot',
        capability: 'crm.read',
        action: 'read',
        task_id: 't1',
        effect_key_step: 'json-guard-1',
      }).replace(/}$/, `,"params":{"p":${params}}}`),
    );
    // The token is alice's, not bot's: the body got through the guard to the claims check.
    expect(r.statusCode).toBe(403);
  });
});
