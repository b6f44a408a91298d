import Ajv2020Module from 'ajv/dist/2020.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { daemonOpenApi } from '../../src/daemon/app.js';
import { describeOnlyDeps } from '../../src/daemon/describe-only.js';
import { fixture, type Fixture } from '../helpers/fixture.js';
import { OpenApiConformance } from '../helpers/openapi-conformance.js';

type Doc = {
  paths: Record<string, Record<string, { responses: Record<string, unknown>; security: unknown[] }>>;
};

/**
 * The daemon's answers against its own OpenAPI document. Every app built by the test
 * fixture checks every response it sends (test/helpers/fixture.ts), so the whole
 * integration suite is a conformance run; this file makes sure each operation is driven
 * at least through its error answers, and that the checker itself catches a lie.
 */
describe('OpenAPI response conformance', () => {
  const full = daemonOpenApi(describeOnlyDeps()) as unknown as Doc;
  let f: Fixture;
  let served: Doc;
  beforeAll(async () => {
    f = await fixture();
    served = (
      await f.app.inject({ url: '/v1/openapi.json', headers: { authorization: `Bearer ${f.adminToken}` } })
    ).json();
  });
  afterAll(async () => f.close());

  it('every response schema compiles with ajv (no self-reference), and every error code is an enum', () => {
    const ajv = new Ajv2020Module.default({ strict: false });
    ajv.addSchema({ ...full, $id: 'https://svc.invalid/doc' });
    let compiled = 0;
    for (const [path, ops] of Object.entries(full.paths)) {
      for (const [method, op] of Object.entries(ops)) {
        for (const status of Object.keys(op.responses)) {
          const ptr = ['paths', path, method, 'responses', status, 'content', 'application/json', 'schema']
            .map((p) => p.replaceAll('~', '~0').replaceAll('/', '~1'))
            .join('/');
          const res = op.responses[status] as { content?: unknown };
          if (!res.content) continue;
          expect(
            () => ajv.compile({ $ref: `https://svc.invalid/doc#/${ptr}` }),
            `${method} ${path} ${status}`,
          ).not.toThrow();
          compiled++;
        }
      }
    }
    expect(compiled).toBeGreaterThan(200);
    const schemas = (
      full as unknown as {
        components: { schemas: Record<string, { properties: Record<string, { enum?: string[] }> }> };
      }
    ).components.schemas;
    for (const st of [400, 401, 403, 404, 409, 413, 500, 503]) {
      expect(schemas[`Error${st}`]!.properties.code!.enum!.length, String(st)).toBeGreaterThan(0);
    }
    expect(schemas.Error403!.properties.code!.enum).toContain('claims_mismatch');
    expect(schemas.Error401!.properties.code!.enum).toContain('unauthenticated');
    expect(schemas.Error413!.properties.code!.enum).toEqual(['payload_too_large']);
    expect(schemas.Decision!.properties.code!.enum).toContain('policy_denied');
  });

  it('the checker refuses an undocumented status, a wrong body and a code outside the enum', () => {
    const c = new OpenApiConformance(full);
    const json = 'application/json; charset=utf-8';
    expect(c.check('GET', '/healthz', 200, json, '{"status":"ok"}')).toBeUndefined();
    expect(c.check('GET', '/healthz', 418, json, '{}')).toMatch(/status 418 is not documented/);
    expect(c.check('GET', '/v1/capabilities', 200, json, '{"tenant_id":1}')).toMatch(/tenant_id/);
    expect(c.check('GET', '/v1/task/t1', 404, json, '{"code":"not_found","reason":"x"}')).toBeUndefined();
    expect(c.check('GET', '/v1/task/t1', 404, json, '{"code":"forbidden","reason":"x"}')).toMatch(
      /allowed values/,
    );
    expect(
      c.check('GET', '/v1/task/t1', 404, json, '{"code":"not_found","reason":"x","path":"/v1"}'),
    ).toMatch(/additional/);
    expect(c.check('POST', '/v1/nothing', 401, json, '{}')).toMatch(/no documented operation/);
  });

  it('a claims_mismatch 403 on /v1/action is an error body the document allows', async () => {
    const r = await f.app.inject({
      method: 'POST',
      url: '/v1/action',
      headers: { authorization: `Bearer ${f.adminToken}` },
      payload: {
        tenant_id: 'other',
        actor_id: 'alice',
        capability: 'x.y',
        action: 'read',
        task_id: 't1',
        effect_key_step: 's',
      },
    });
    expect(r.statusCode).toBe(403);
    expect(r.json().code).toBe('claims_mismatch');
    expect(
      new OpenApiConformance(full).check(
        'POST',
        '/v1/action',
        403,
        r.headers['content-type'] as string,
        r.body,
      ),
    ).toBeUndefined();
  });

  it('drives every mounted operation through its error answers, each conforming', async () => {
    const checker = new OpenApiConformance(served);
    const seen = new Map<string, Set<number>>();
    const drive = async (
      method: string,
      template: string,
      opts: { token?: string; payload?: string } = {},
    ) => {
      const url = template.replace(/\{[^}]+\}/g, 'no-such-thing');
      const r = await f.app.inject({
        method: method.toUpperCase() as 'GET' | 'POST',
        url,
        headers: {
          ...(opts.token ? { authorization: `Bearer ${opts.token}` } : {}),
          ...(opts.payload !== undefined ? { 'content-type': 'application/json' } : {}),
        },
        ...(opts.payload !== undefined ? { payload: opts.payload } : {}),
      });
      expect(r.statusCode, `${method} ${url}`).toBeLessThan(500);
      const v = checker.check(
        method,
        url,
        r.statusCode,
        r.headers['content-type'] as string | undefined,
        r.body,
      );
      expect(v, `${method} ${url}`).toBeUndefined();
      const key = `${method.toUpperCase()} ${template.split('?')[0]}`;
      seen.set(key, (seen.get(key) ?? new Set()).add(r.statusCode));
    };
    for (const [template, ops] of Object.entries(served.paths)) {
      for (const [method, op] of Object.entries(ops)) {
        const post = method === 'post';
        const authed = op.security.length > 0;
        // Without a credential (401 on token routes), with a body that fits no schema,
        // with malformed JSON, with an oversized body, and with an unknown id.
        await drive(method, template, post ? { payload: '{"unexpected": true}' } : {});
        if (!authed) continue;
        const token = f.adminToken;
        await drive(method, template, { token });
        if (post) {
          await drive(method, template, { token, payload: '{"unexpected": true}' });
          await drive(method, template, { token, payload: '{"a":' });
          await drive(method, template, { token, payload: JSON.stringify({ pad: 'x'.repeat(300 * 1024) }) });
        } else {
          await drive(method, `${template}?limit=-1`, { token });
        }
      }
    }
    const documented = Object.entries(served.paths).flatMap(([p, ops]) =>
      Object.keys(ops).map((m) => `${m.toUpperCase()} ${p}`),
    );
    expect([...seen.keys()].sort()).toEqual(documented.sort());
    for (const [op, statuses] of seen) {
      const doc = served.paths[op.split(' ')[1]!]![op.split(' ')[0]!.toLowerCase()]!;
      const authed = doc.security.length > 0;
      if (authed) expect(statuses.has(401), op).toBe(true);
      // A POST that reads its body refuses a bad one; federate answers before reading any (no 413).
      if (authed && op.startsWith('POST') && '413' in doc.responses)
        expect(
          [...statuses].some((s) => s === 400 || s === 413),
          op,
        ).toBe(true);
    }
  });
});
