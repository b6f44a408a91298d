import { execFileSync } from 'node:child_process';
import { Validator } from '@seriousme/openapi-schema-validator';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BIN } from '../helpers/cli.js';
import { fixture, type Fixture } from '../helpers/fixture.js';

describe('OpenAPI document', () => {
  let f: Fixture;
  beforeAll(async () => {
    f = await fixture();
  });
  afterAll(async () => f.close());

  it('is served to authenticated callers and is a valid OpenAPI 3.1 document', async () => {
    expect((await f.app.inject('/v1/openapi.json')).statusCode).toBe(401);
    const r = await f.app.inject({
      url: '/v1/openapi.json',
      headers: { authorization: `Bearer ${f.adminToken}` },
    });
    expect(r.statusCode).toBe(200);
    const doc = r.json();
    const validator = new Validator();
    const result = await validator.validate(doc);
    expect(result.errors ?? []).toEqual([]);
    expect(result.valid).toBe(true);
    expect(validator.version).toBe('3.1');
  });

  it('describes every mounted route, with the security schemes of the spec', async () => {
    const doc = (
      await f.app.inject({ url: '/v1/openapi.json', headers: { 'x-svc-token': f.adminToken } })
    ).json();
    for (const p of ['/healthz', '/readyz', '/v1/capabilities', '/v1/openapi.json'])
      expect(doc.paths).toHaveProperty(p);
    expect(doc.paths['/healthz'].get.security).toEqual([]);
    expect(doc.paths['/v1/capabilities'].get.security).toEqual([
      { bearerAuth: [] },
      { svcToken: [] },
      { mutualTLS: [] },
    ]);
    expect(doc.components.securitySchemes.svcToken).toEqual({
      type: 'apiKey',
      in: 'header',
      name: 'X-SVC-Token',
    });
    const caps = doc.paths['/v1/capabilities'].get.responses['200'].content['application/json'].schema;
    expect(caps.required).toEqual(['tenant_id', 'actor_id', 'capabilities']);
  });

  it('`svc openapi` prints the served document plus the integration-ops routes, marked as such', async () => {
    const printed = JSON.parse(execFileSync(process.execPath, [BIN, 'openapi'], { encoding: 'utf8' }));
    const served = (
      await f.app.inject({ url: '/v1/openapi.json', headers: { 'x-svc-token': f.adminToken } })
    ).json();
    const opsPaths = Object.keys(printed.paths).filter((p) => p.startsWith('/v1/integration-ops/'));
    expect(opsPaths.sort()).toEqual([
      '/v1/integration-ops/connection-check',
      '/v1/integration-ops/revoke',
      '/v1/integration-ops/rotate',
      '/v1/integration-ops/surfaces',
    ]);
    for (const p of opsPaths) {
      for (const op of Object.values(printed.paths[p]) as Record<string, unknown>[]) {
        expect(op['x-svc-mounted-only-with']).toMatch(/integration-operations document/);
        expect(op.description).toMatch(/^Mounted only when the daemon runs with/);
      }
      delete printed.paths[p];
    }
    expect(printed).toEqual(served);
    const result = await new Validator().validate(printed);
    expect(result.errors ?? []).toEqual([]);
  });
});
