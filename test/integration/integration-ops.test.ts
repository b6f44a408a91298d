import { Validator } from '@seriousme/openapi-schema-validator';
import type { FastifyInstance } from 'fastify';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { buildDaemon, daemonOpenApi } from '../../src/daemon/app.js';
import { daemonDeps } from '../../src/daemon/wiring.js';
import { parseIntegrationDocument } from '../../src/integration/document.js';
import { SecretBox } from '../../src/integration/secret-box.js';
import { addActor } from '../../src/provisioning/actor.js';
import { downstream, type Downstream } from '../helpers/downstream.js';
import { watchConformance } from '../helpers/openapi-conformance.js';
import { fixture, type Fixture } from '../helpers/fixture.js';

const TOKEN = 'ops-tok-1d5e8f';
const OTHER = 'ops-other-62ab0c';
const ROUTES: ['GET' | 'POST', string, object | undefined][] = [
  ['GET', '/v1/integration-ops/surfaces', undefined],
  ['POST', '/v1/integration-ops/connection-check', { surface_id: 'crm' }],
  ['POST', '/v1/integration-ops/rotate', { surface_id: 'crm', credential_ref: 'env:SVC_OPS_OTHER' }],
  ['POST', '/v1/integration-ops/revoke', { surface_id: 'crm' }],
];

const doc = (url: string) => `
surfaces:
  - id: crm
    adapter: http
    base_url: ${url}
    credential_ref: env:SVC_OPS_TOKEN
    credential_refs: [env:SVC_OPS_OTHER]
    auth: { type: bearer }
    check: { method: GET, path: /health }
    operations:
      contacts.create: { method: POST, path: /contacts }
  - id: billing
    adapter: http
    base_url: ${url}
    credential_ref: env:SVC_OPS_TOKEN
    auth: { type: header, name: X-Key }
    tenants: [other]
    operations:
      charge: { method: POST, path: /charge }
`;

describe('integration-operations routes', () => {
  let f: Fixture;
  let ds: Downstream;
  let app: FastifyInstance;
  const tokens: Record<string, string> = {};
  const call = async (actor: string, method: 'GET' | 'POST', url: string, payload?: object, on = app) => {
    const r = await on.inject({
      method,
      url,
      headers: { authorization: `Bearer ${tokens[actor]}` },
      ...(payload ? { payload } : {}),
    });
    return { status: r.statusCode, json: r.json(), text: r.body };
  };

  let conformance: ReturnType<typeof watchConformance>;
  beforeEach(async () => {
    process.env.SVC_OPS_TOKEN = TOKEN;
    process.env.SVC_OPS_OTHER = OTHER;
    f = await fixture();
    ds = await downstream();
    const integration = parseIntegrationDocument(doc(ds.url), 'ops.yaml');
    const deps = daemonDeps(f.dir, f.store, { authMode: 'token', clock: () => f.now.value, integration });
    app = buildDaemon(deps, {
      logger: false,
    });
    conformance = watchConformance(app, daemonOpenApi(deps));
    await app.ready();
    const at = f.now.value;
    await addActor(f.store, { tenantId: 'acme', id: 'opal', kind: 'human', roles: ['operator'] }, at);
    await addActor(f.store, { tenantId: 'acme', id: 'nora', kind: 'human' }, at);
    await addActor(f.store, { tenantId: 'acme', id: 'svc1', kind: 'service' }, at);
    tokens.alice = f.adminToken; // administrator and operator
    tokens.opal = await f.token('acme', 'opal');
    tokens.nora = await f.token('acme', 'nora');
    tokens.bot = await f.token('acme', 'bot');
    tokens.svc1 = await f.token('acme', 'svc1');
    tokens.olga = await f.token('other', 'olga');
  });
  afterEach(async () => {
    expect(conformance.violations()).toEqual([]);
    await app.close();
    await ds.close();
    await f.close();
  });

  it('are absent without a document: 404 exactly as an unknown route', async () => {
    for (const [method, url, payload] of ROUTES) {
      const r = await call('alice', method, url, payload, f.app);
      expect(r.status, url).toBe(404);
      expect(r.json).toEqual({
        code: 'not_found',
        reason: 'no such route',
        remedy: 'check the method and the path',
      });
    }
    const openapi = await call('alice', 'GET', '/v1/openapi.json', undefined, f.app);
    expect(Object.keys(openapi.json.paths).filter((p) => p.includes('integration-ops'))).toEqual([]);
    const served = await call('alice', 'GET', '/v1/openapi.json');
    expect(Object.keys(served.json.paths).filter((p) => p.includes('integration-ops'))).toHaveLength(4);
    const validator = new Validator();
    const result = await validator.validate(served.json);
    expect(result.errors ?? []).toEqual([]);
  });

  it('enforce roles: list for registered humans, check for operators, rotate and revoke for administrators', async () => {
    const expected: Record<string, number[]> = {
      bot: [403, 403, 403, 403],
      svc1: [403, 403, 403, 403],
      nora: [200, 403, 403, 403],
      opal: [200, 200, 403, 403],
    };
    for (const [actor, statuses] of Object.entries(expected)) {
      for (const [i, [method, url, payload]] of ROUTES.entries()) {
        expect((await call(actor, method, url, payload)).status, `${actor} ${url}`).toBe(statuses[i]);
      }
    }
    expect((await call('alice', 'POST', '/v1/integration-ops/revoke', { surface_id: 'crm' })).status).toBe(
      200,
    );
    const unauth = await app.inject({ method: 'GET', url: '/v1/integration-ops/surfaces' });
    expect(unauth.statusCode).toBe(401);
  });

  it('list surfaces of the caller’s tenant with state, never a credential reference, contacting nothing', async () => {
    const r = await call('nora', 'GET', '/v1/integration-ops/surfaces');
    expect(r.json.surfaces).toEqual([
      {
        surface_id: 'crm',
        adapter: 'http',
        status: 'active',
        operations: ['contacts.create'],
        rotated_at: null,
        revoked_at: null,
      },
    ]);
    expect(r.json.note).toMatch(/does not prove connectivity/);
    expect(r.text).not.toMatch(/env:|SVC_OPS/);
    // crm names no tenants, so every tenant has it, each with its own state; billing is other's alone
    expect(
      (await call('olga', 'GET', '/v1/integration-ops/surfaces')).json.surfaces.map(
        (s: { surface_id: string }) => s.surface_id,
      ),
    ).toEqual(['crm', 'billing']);
    expect(
      (await call('alice', 'POST', '/v1/integration-ops/revoke', { surface_id: 'billing' })).status,
    ).toBe(404);
    expect(ds.calls).toHaveLength(0);
  });

  it('connection check: the adapter’s answer, labelled not live, journaled, never the credential', async () => {
    ds.handle((c, res) => res.writeHead(c.headers.authorization === `Bearer ${TOKEN}` ? 204 : 401).end());
    const ok = await call('opal', 'POST', '/v1/integration-ops/connection-check', { surface_id: 'crm' });
    expect(ok.json).toMatchObject({
      surface_id: 'crm',
      credential_ref: null,
      answer: 'reachable',
      status: 204,
      live_vendor_verification: false,
      note: expect.stringMatching(/not a live vendor verification/),
    });
    expect(ds.calls[0]).toMatchObject({ method: 'GET', url: '/health' });
    const other = await call('opal', 'POST', '/v1/integration-ops/connection-check', {
      surface_id: 'crm',
      credential_ref: 'env:SVC_OPS_OTHER',
    });
    expect(other.json).toMatchObject({
      answer: 'credential_rejected',
      status: 401,
      credential_ref: 'env:SVC_OPS_OTHER',
    });
    const unset = await call('opal', 'POST', '/v1/integration-ops/connection-check', {
      surface_id: 'crm',
      credential_ref: 'secret:none',
    });
    expect(unset.json).toMatchObject({
      answer: 'credential_unavailable',
      reason: expect.stringMatching(/no secret none/),
    });
    const rows = f.store.db
      .prepare("SELECT kind, record FROM journal WHERE tenant_id = 'acme' ORDER BY sequence")
      .all() as { kind: string; record: string }[];
    expect(rows.map((x) => x.kind)).toEqual(['integration_op', 'integration_op', 'integration_op']);
    expect(JSON.parse(rows[0]!.record)).toMatchObject({
      action: 'connection_check',
      outcome: 'reachable',
      actor_id: 'opal',
    });
    for (const t of [ok.text, other.text, unset.text, JSON.stringify(rows)]) {
      expect(t).not.toContain(TOKEN);
      expect(t).not.toContain(OTHER);
    }
  });

  it('rotate accepts only secrets and the document’s references, and each change is journaled', async () => {
    const refused: [string, string, number][] = [
      ['env:PATH', 'credential_ref_not_allowed', 400],
      ['file:/etc/passwd', 'credential_ref_not_allowed', 400],
      ['secret:missing', 'credential_unavailable', 400],
      ['no-kind', 'invalid_request', 400],
      ['env:SVC_OPS_TOKEN', 'credential_in_use', 409],
    ];
    for (const [ref, code, status] of refused) {
      const r = await call('alice', 'POST', '/v1/integration-ops/rotate', {
        surface_id: 'crm',
        credential_ref: ref,
      });
      expect(r.status, ref).toBe(status);
      expect(r.json.code, ref).toBe(code);
    }
    const rotated = await call('alice', 'POST', '/v1/integration-ops/rotate', {
      surface_id: 'crm',
      credential_ref: 'env:SVC_OPS_OTHER',
    });
    expect(rotated.json).toMatchObject({
      surface_id: 'crm',
      status: 'active',
      rotated_at: f.now.value.toISOString(),
    });
    const box = SecretBox.open(f.dir.root, { create: true });
    await f.store.secrets.put('acme', 'crm-3', box.seal('acme', 'crm-3', 'third'), 'x');
    expect(
      (
        await call('alice', 'POST', '/v1/integration-ops/rotate', {
          surface_id: 'crm',
          credential_ref: 'secret:crm-3',
        })
      ).status,
    ).toBe(200);
    const back = await call('alice', 'POST', '/v1/integration-ops/rotate', {
      surface_id: 'crm',
      credential_ref: 'env:SVC_OPS_OTHER',
    });
    expect(back.json.code).toBe('credential_retired');
    const revoked = await call('alice', 'POST', '/v1/integration-ops/revoke', { surface_id: 'crm' });
    expect(revoked.json).toMatchObject({
      status: 'revoked',
      note: expect.stringMatching(/not revoke the credential at the vendor/),
    });
    expect((await call('alice', 'POST', '/v1/integration-ops/revoke', { surface_id: 'crm' })).json.code).toBe(
      'surface_revoked',
    );
    const listed = await call('nora', 'GET', '/v1/integration-ops/surfaces');
    expect(listed.json.surfaces[0]).toMatchObject({
      status: 'revoked',
      revoked_at: f.now.value.toISOString(),
    });
    const receipts = await call('alice', 'GET', '/v1/receipts');
    const ops = receipts.json.items.map((x: { kind: string; action: string; outcome: string }) => [
      x.kind,
      x.action,
      x.outcome,
    ]);
    expect(ops).toEqual([
      ['integration_op', 'rotate', 'rotated'],
      ['integration_op', 'rotate', 'rotated'],
      ['integration_op', 'revoke', 'revoked'],
    ]);
    // references stay in the private record, out of the published receipt
    expect(receipts.text).not.toMatch(/SVC_OPS|secret:crm-3/);
    const record = JSON.parse(
      f.store.db
        .prepare("SELECT record FROM journal WHERE tenant_id = 'acme' ORDER BY sequence")
        .pluck()
        .get() as string,
    );
    expect(record).toMatchObject({
      previous_ref: 'env:SVC_OPS_TOKEN',
      credential_ref: 'env:SVC_OPS_OTHER',
      actor_id: 'alice',
    });
  });
});
