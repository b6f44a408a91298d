import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fixture, type Fixture } from '../helpers/fixture.js';

describe('OpenAPI: access routes and the approval-channel callback', () => {
  let f: Fixture;
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  let doc: any;
  beforeAll(async () => {
    f = await fixture();
    doc = (await f.app.inject({ url: '/v1/openapi.json', headers: { 'x-svc-token': f.adminToken } })).json();
  });
  afterAll(async () => f.close());

  it('describes every access route with the token schemes, and the manager cards as a plain array', () => {
    const ops = {
      '/v1/access-requests': 'post',
      '/v1/access-requests/{id}': 'get',
      '/v1/access-requests/{id}/revoke': 'post',
      '/v1/manager-cards': 'get',
      '/v1/manager-cards/decide': 'post',
      '/v1/entitlements': 'get',
      '/v1/entitlements/{id}': 'get',
      '/v1/entitlements/{id}/revoke': 'post',
    };
    for (const [path, method] of Object.entries(ops)) {
      expect(doc.paths[path]?.[method]?.security, path).toEqual([
        { bearerAuth: [] },
        { svcToken: [] },
        { mutualTLS: [] },
      ]);
    }
    const cards = doc.paths['/v1/manager-cards'].get;
    expect(cards.responses['200'].content['application/json'].schema.type).toBe('array');
    expect(cards.parameters.map((p: { name: string }) => p.name)).toEqual(['status']);
    const ents = doc.paths['/v1/entitlements'].get.parameters.map((p: { name: string }) => p.name);
    expect(ents).toEqual(expect.arrayContaining(['limit', 'cursor']));
  });

  it('documents the callback as unauthenticated by token, with both channel body formats', () => {
    const cb = doc.paths['/approvals/{channel}/callback'].post;
    expect(cb.security).toEqual([]);
    expect(Object.keys(cb.requestBody.content).sort()).toEqual([
      'application/json',
      'application/x-www-form-urlencoded',
    ]);
    expect(Object.keys(cb.responses).sort()).toEqual([
      '200',
      '400',
      '401',
      '403',
      '404',
      '409',
      '413',
      '500',
      '503',
    ]);
  });
});
