import { createHash } from 'node:crypto';
import type { ServerResponse } from 'node:http';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { FastifyInstance } from 'fastify';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { buildDaemon, daemonOpenApi } from '../../src/daemon/app.js';
import { daemonDeps } from '../../src/daemon/wiring.js';
import { parseIntegrationDocument } from '../../src/integration/document.js';
import { SecretBox } from '../../src/integration/secret-box.js';
import { SqliteStore } from '../../src/store/sqlite/store.js';
import { downstream, type Downstream } from '../helpers/downstream.js';
import { watchConformance } from '../helpers/openapi-conformance.js';
import { fixture, type Fixture } from '../helpers/fixture.js';
import { addApprover } from '../helpers/approver.js';
import { capability, register } from '../helpers/registry.js';

const CRM = 'crm-tok-7f3a9c-Ä';
const MAIL = 'mail-key-5be21d';
const ERP = 'erp-user:erp-pass-c4d9';
const NEXT = 'crm-rotated-91e0aa';
const SECRETS = [CRM, MAIL, ERP, NEXT, Buffer.from(ERP).toString('base64')];

const doc = (url: string) => `
surfaces:
  - id: crm
    adapter: http
    base_url: ${url}
    credential_ref: env:SVC_TEST_CRM
    auth: { type: bearer }
    timeout_ms: 500
    max_response_bytes: 1024
    operations:
      contacts.create:
        method: POST
        path: /contacts/{team}
        effect_id: /id
      contacts.get:
        method: GET
        path: /contacts/{id}
        return_body: true
      contacts.delete: { method: DELETE, path: "/contacts/{id}" }
  - id: mail
    adapter: http
    base_url: ${url}/mail
    credential_ref: env:SVC_TEST_MAIL
    auth: { type: header, name: X-Api-Key }
    operations:
      send: { method: POST, path: /send, effect_id: /message/id }
  - id: erp
    adapter: http
    base_url: ${url}
    credential_ref: env:SVC_TEST_ERP
    auth: { type: basic }
    operations:
      orders.list: { method: GET, path: /orders, query: { status: "{status}" } }
  - id: dead
    adapter: http
    base_url: http://127.0.0.1:1
    credential_ref: env:SVC_TEST_CRM
    auth: { type: bearer }
    operations:
      ping: { method: POST, path: /ping }
`;

const brokered = (name: string, surfaceId: string, operation: string, over = {}) =>
  capability('acme', name, {
    custody: 'brokered',
    surfaceId,
    operation,
    actions: ['write'],
    costMicros: 0n,
    ...over,
  });

describe('POST /v1/brokered against a real provider on loopback', () => {
  let f: Fixture;
  let ds: Downstream;
  let app: FastifyInstance;
  let bot: string;
  let logs: string[];
  let n = 0;

  const body = (
    capabilityName: string,
    params?: Record<string, unknown>,
    over: Record<string, unknown> = {},
  ) => ({
    tenant_id: 'acme',
    actor_id: 'bot',
    capability: capabilityName,
    action: 'write',
    task_id: 't1',
    effect_key_step: `step-${++n}`,
    ...(params ? { params } : {}),
    ...over,
  });
  const post = async (payload: object, url = '/v1/brokered', token = bot) => {
    const r = await app.inject({
      method: 'POST',
      url,
      headers: { authorization: `Bearer ${token}` },
      payload,
    });
    return { status: r.statusCode, text: r.body, json: r.json() };
  };
  const journal = () =>
    f.store.db
      .prepare("SELECT kind, record FROM journal WHERE tenant_id = 'acme' ORDER BY sequence")
      .all() as {
      kind: string;
      record: string;
    }[];
  /** Everything a credential could leak into: bodies, logs, the journal and every table. */
  const expectNoSecret = (...texts: string[]) => {
    const tables = ['journal', 'intents', 'executions', 'surface_states', 'secrets'].map((t) =>
      JSON.stringify(f.store.db.prepare(`SELECT * FROM ${t}`).all()),
    );
    for (const t of [...texts, ...logs, ...tables]) for (const s of SECRETS) expect(t).not.toContain(s);
  };

  let conformance: ReturnType<typeof watchConformance>;
  beforeEach(async () => {
    process.env.SVC_TEST_CRM = CRM;
    process.env.SVC_TEST_MAIL = MAIL;
    process.env.SVC_TEST_ERP = ERP;
    f = await fixture();
    ds = await downstream();
    logs = [];
    const integration = parseIntegrationDocument(doc(ds.url), 'ops.yaml');
    const deps = daemonDeps(f.dir, f.store, { authMode: 'token', clock: () => f.now.value, integration });
    app = buildDaemon(deps, {
      logger: { level: 'debug', stream: { write: (line: string) => logs.push(line) } },
    });
    conformance = watchConformance(app, daemonOpenApi(deps));
    await app.ready();
    bot = await f.token('acme', 'bot');
    await register(f.store, 'acme', {
      caps: [
        brokered('crm.contacts.create', 'crm', 'contacts.create'),
        brokered('crm.contacts.get', 'crm', 'contacts.get', { actions: ['read'] }),
        brokered('crm.contacts.delete', 'crm', 'contacts.delete', { irreversible: true, tier: 3 }),
        brokered('mail.send', 'mail', 'send'),
        brokered('erp.orders', 'erp', 'orders.list', { actions: ['read'] }),
        brokered('dead.ping', 'dead', 'ping'),
        brokered('crm.nope', 'crm', 'no.such.operation'),
        brokered('ghost.op', 'ghost', 'op'),
      ],
      grants: [
        'crm.contacts.create',
        'crm.contacts.get',
        'crm.contacts.delete',
        'mail.send',
        'erp.orders',
        'dead.ping',
        'crm.nope',
        'ghost.op',
      ].map((c) => ['bot', c] as [string, string]),
      tasks: [{ id: 't1', sponsor: 'alice', budget: 100_000_000n, actors: ['bot'] }],
    });
  });
  afterEach(async () => {
    expect(conformance.violations()).toEqual([]);
    await app.close();
    await ds.close();
    await f.close();
  });

  it('2xx: injects the bearer credential, maps params, and returns and journals the outcome', async () => {
    const r = await post(
      body(
        'crm.contacts.create',
        { team: 'sales/emea', name: 'Ada', tags: ['x'] },
        { correlation_id: 'corr-77' },
      ),
    );
    expect(r.status).toBe(200);
    expect(ds.calls).toHaveLength(1);
    const call = ds.calls[0]!;
    expect(call).toMatchObject({ method: 'POST', url: '/contacts/sales%2Femea' });
    expect(call.headers.authorization).toBe(`Bearer ${CRM}`);
    expect(call.headers['content-type']).toBe('application/json');
    expect(JSON.parse(call.body)).toEqual({ name: 'Ada', tags: ['x'] });
    const providerBody = JSON.stringify({ id: 'c-1', ok: true });
    expect(r.json).toMatchObject({
      decision: 'allowed',
      grant: null,
      provider: {
        execution_id: expect.stringMatching(/^exe_[0-9a-f]{32}$/),
        outcome: 'succeeded',
        sent: true,
        status: 201,
        effect_id: 'c-1',
        digest: createHash('sha256').update(providerBody).digest('hex'),
        error: null,
      },
    });
    expect(r.json.provider).not.toHaveProperty('body');
    // the decision and the outcome are two journal records, linked by the intent
    const records = journal().map((j) => ({ kind: j.kind, ...JSON.parse(j.record) }));
    expect(records.map((x) => x.kind)).toEqual(['decision', 'execution']);
    expect(records[0]).toMatchObject({ route: 'brokered', execution_id: r.json.provider.execution_id });
    expect(records[1]).toMatchObject({
      intent_id: r.json.intent_id,
      outcome: 'succeeded',
      effect_id: 'c-1',
      credential_ref: 'env:SVC_TEST_CRM',
      observed: false,
    });
    const receipts = await app.inject({
      url: '/v1/receipts?task_id=t1',
      headers: { authorization: `Bearer ${bot}` },
    });
    const exec = receipts.json().items.find((x: { kind: string }) => x.kind === 'execution');
    expect(exec).toMatchObject({
      intent_id: r.json.intent_id,
      outcome: 'succeeded',
      effect_id: 'c-1',
      observed: false,
    });
    expect(exec.effect).toMatchObject({ status: 201, sent: true });
    expect(receipts.body).not.toContain('env:SVC_TEST_CRM');
    expect(receipts.body).not.toContain('corr-77');
    expectNoSecret(r.text, receipts.body);
  });

  it('injects a named header and basic credentials, and fills query templates', async () => {
    ds.handle((_c, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ message: { id: 'm-42' } }));
    });
    const mail = await post(body('mail.send', { to: 'a@example.com' }));
    expect(mail.json.provider).toMatchObject({ outcome: 'succeeded', effect_id: 'm-42' });
    expect(ds.calls[0]).toMatchObject({ url: '/mail/send' });
    expect(ds.calls[0]!.headers['x-api-key']).toBe(MAIL);
    expect(ds.calls[0]!.headers.authorization).toBeUndefined();

    const erp = await post(body('erp.orders', { status: 'open & late' }, { action: 'read' }));
    expect(erp.json.provider.outcome).toBe('succeeded');
    expect(ds.calls[1]).toMatchObject({ method: 'GET', url: '/orders?status=open+%26+late', body: '' });
    expect(ds.calls[1]!.headers.authorization).toBe(`Basic ${Buffer.from(ERP).toString('base64')}`);
    expectNoSecret(mail.text, erp.text);
  });

  it('4xx is failed; 3xx, 5xx, timeout, reset and an oversized body are unknown; each is journaled', async () => {
    const cases: [string, (res: ServerResponse) => void, Record<string, unknown>][] = [
      [
        '4xx',
        (res) => res.writeHead(422, { 'content-type': 'application/json' }).end('{"error":"bad"}'),
        { outcome: 'failed', status: 422, error: null },
      ],
      [
        '5xx',
        (res) => res.writeHead(502).end('bad gateway'),
        { outcome: 'unknown', status: 502, error: null },
      ],
      [
        '3xx, not followed',
        (res) => res.writeHead(303, { location: '/contacts/elsewhere' }).end(),
        { outcome: 'unknown', status: 303, error: null },
      ],
      ['timeout', () => undefined, { outcome: 'unknown', status: null, error: 'timeout', sent: true }],
      [
        'reset',
        (res) => res.socket?.destroy(),
        { outcome: 'unknown', status: null, error: 'reset', sent: true },
      ],
      [
        'oversized',
        (res) => res.writeHead(200).end('x'.repeat(4096)),
        { outcome: 'unknown', status: 200, error: 'response_too_large', digest: null },
      ],
      [
        '2xx chunked over the limit',
        (res) => {
          res.writeHead(201, { 'content-type': 'application/json' });
          res.write('['.padEnd(800, ' '));
          res.end(']'.padStart(800, ' '));
        },
        { outcome: 'unknown', status: 201, error: 'response_too_large' },
      ],
    ];
    for (const [name, answer, expected] of cases) {
      ds.handle((_c, res) => answer(res));
      const before = ds.calls.length;
      const r = await post(body('crm.contacts.create', { team: 'ops' }));
      expect(r.status, name).toBe(200);
      expect(r.json.decision, name).toBe('allowed');
      expect(r.json.provider, name).toMatchObject(expected);
      expect(ds.calls.length - before, `${name}: sent once, never retried`).toBe(1);
      const last = journal().at(-1)!;
      expect(last.kind, name).toBe('execution');
      expect(JSON.parse(last.record).outcome, name).toBe(expected.outcome);
      if (expected.outcome === 'unknown') expect(r.json.provider.reason, name).toMatch(/reconcile/);
    }
    const states = f.store.db.prepare('SELECT state FROM executions ORDER BY created_at').pluck().all();
    expect(states).not.toContain('pending');
  });

  it('a provider that cannot be reached is failed and not sent', async () => {
    const r = await post(body('dead.ping', { a: 1 }));
    expect(r.json.provider).toMatchObject({
      outcome: 'failed',
      sent: false,
      error: 'not_sent',
      status: null,
    });
  });

  it('hands back a JSON body only where the operation says so, with the credential scrubbed', async () => {
    ds.handle((c, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ id: 'c-9', echo: c.headers.authorization, note: `token ${CRM} seen` }));
    });
    const r = await post(body('crm.contacts.get', { id: 'c-9' }, { action: 'read' }));
    expect(ds.calls[0]).toMatchObject({ method: 'GET', url: '/contacts/c-9', body: '' });
    expect(r.json.provider.body).toEqual({ id: 'c-9', echo: '[redacted]', note: 'token [redacted] seen' });
    // an effect id that echoes the credential is scrubbed before it is returned or journaled
    ds.handle((_c, res) => res.writeHead(201).end(JSON.stringify({ id: `id-${CRM}` })));
    const created = await post(body('crm.contacts.create', { team: 'a' }));
    expect(created.json.provider.effect_id).toBe('id-[redacted]');
    expectNoSecret(r.text, created.text);
  });

  it('params that do not fit the operation are a 400 naming the field; nothing is decided or sent', async () => {
    const cases: [Record<string, unknown> | undefined, string][] = [
      [undefined, 'params.team'],
      [{ team: { nested: 1 } }, 'params.team'],
      [{ team: '..' }, 'params.team'],
    ];
    for (const [params, field] of cases) {
      const r = await post(body('crm.contacts.create', params));
      expect(r.status).toBe(400);
      expect(r.json.field).toBe(field);
    }
    const get = await post(body('crm.contacts.get', { id: 'x', extra: true }, { action: 'read' }));
    expect(get.json).toMatchObject({ field: 'params.extra' });
    expect(ds.calls).toHaveLength(0);
    expect(journal()).toHaveLength(0);
  });

  it('an unknown surface, an unknown operation and an unusable credential refuse as surface_unavailable', async () => {
    const ghost = await post(body('ghost.op'));
    expect(ghost.status).toBe(403);
    expect(ghost.json).toMatchObject({ decision: 'refused', code: 'surface_unavailable', provider: null });
    expect(ghost.json.reason).toMatch(/ghost is not configured/);
    const nope = await post(body('crm.nope'));
    expect(nope.json).toMatchObject({
      code: 'surface_unavailable',
      reason: expect.stringMatching(/no operation no\.such\.operation/),
    });
    delete process.env.SVC_TEST_MAIL;
    const send = body('mail.send');
    const mail = await post(send);
    expect(mail.json).toMatchObject({
      code: 'surface_unavailable',
      reason: 'surface mail has no usable credential',
    });
    // the agent is not told where the credential lives; the operator's log is
    expect(mail.text).not.toContain('SVC_TEST_MAIL');
    expect(logs.join('')).toContain('SVC_TEST_MAIL');
    expect(ds.calls).toHaveLength(0);
    // a refusal claims nothing: fixed, the same step goes through
    process.env.SVC_TEST_MAIL = MAIL;
    expect((await post(send)).json.provider.outcome).toBe('succeeded');
  });

  it('the action route refuses brokered capabilities and never executes', async () => {
    const r = await post(body('crm.contacts.create', { team: 'a' }), '/v1/action');
    expect(r.json).toMatchObject({ decision: 'refused', code: 'wrong_route' });
    expect(ds.calls).toHaveLength(0);
  });

  it('both brokered routes need a credential and claims that are the caller’s own', async () => {
    for (const url of ['/v1/brokered', '/v1/brokered/resume']) {
      const anonymous = await app.inject({
        method: 'POST',
        url,
        payload: body('crm.contacts.create', { team: 'a' }),
      });
      expect(anonymous.statusCode, url).toBe(401);
      const alice = await post(body('crm.contacts.create', { team: 'a' }), url, f.adminToken);
      expect(alice.status, url).toBe(403);
      expect(alice.json.code, url).toBe('claims_mismatch');
    }
    expect(ds.calls).toHaveLength(0);
    expect(journal()).toHaveLength(0);
  });

  it('concurrent duplicates of one effect key execute once', async () => {
    ds.handle((_c, res) => setTimeout(() => res.writeHead(201).end('{"id":"once"}'), 50));
    const same = body('crm.contacts.create', { team: 'a' });
    const results = await Promise.all(Array.from({ length: 12 }, () => post(same)));
    const statuses = results.map((r) => r.status).sort();
    expect(statuses.filter((s) => s === 200)).toHaveLength(1);
    expect(statuses.filter((s) => s === 409)).toHaveLength(11);
    expect(ds.calls).toHaveLength(1);
    const winner = results.find((r) => r.status === 200)!;
    for (const r of results.filter((x) => x.status === 409)) {
      expect(r.json).toMatchObject({ code: 'duplicate_effect', intent_id: winner.json.intent_id });
    }
  });

  it('a deferred brokered action executes only when its resume allows', async () => {
    await addApprover(f.store, 'bob');
    const bob = await f.token('acme', 'bob');
    const del = body('crm.contacts.delete', { id: 'c-1' });
    const deferred = await post(del);
    expect(deferred.status).toBe(202);
    expect(deferred.json.provider).toBeNull();
    const early = await post(del, '/v1/brokered/resume');
    expect(early.status).toBe(202);
    expect(ds.calls).toHaveLength(0);
    const approvalId = deferred.json.approval.approval_id as string;
    const approved = await app.inject({
      method: 'POST',
      url: `/v1/approvals/${approvalId}/decision`,
      headers: { authorization: `Bearer ${bob}` },
      payload: { decision: 'approve' },
    });
    expect(approved.statusCode).toBe(200);
    const resumed = await post(del, '/v1/brokered/resume');
    expect(resumed.status).toBe(200);
    expect(resumed.json).toMatchObject({
      decision: 'allowed',
      intent_id: deferred.json.intent_id,
      provider: { outcome: 'succeeded' },
    });
    expect(ds.calls).toHaveLength(1);
    expect(ds.calls[0]).toMatchObject({ method: 'DELETE', url: '/contacts/c-1' });
    expect((await post(del, '/v1/brokered/resume')).status).toBe(404);
    expect((await post(del)).status).toBe(409);
    expect(ds.calls).toHaveLength(1);
  });

  it('a revoked surface refuses at once; a rotation takes effect for the next call', async () => {
    const alice = f.adminToken;
    const ops = (url: string, payload: object) =>
      app.inject({ method: 'POST', url, headers: { authorization: `Bearer ${alice}` }, payload });
    expect((await ops('/v1/integration-ops/revoke', { surface_id: 'crm' })).statusCode).toBe(200);
    const refused = await post(body('crm.contacts.create', { team: 'a' }));
    expect(refused.json).toMatchObject({
      decision: 'refused',
      code: 'surface_unavailable',
      reason: 'surface crm is revoked',
    });
    expect(ds.calls).toHaveLength(0);

    const box = SecretBox.open(f.dir.root, { create: true });
    await f.store.secrets.put('acme', 'crm-next', box.seal('acme', 'crm-next', NEXT), 'x');
    const rotated = await ops('/v1/integration-ops/rotate', {
      surface_id: 'crm',
      credential_ref: 'secret:crm-next',
    });
    expect(rotated.json()).toMatchObject({ surface_id: 'crm', status: 'active' });
    const after = await post(body('crm.contacts.create', { team: 'a' }));
    expect(after.json.provider.outcome).toBe('succeeded');
    expect(ds.calls[0]!.headers.authorization).toBe(`Bearer ${NEXT}`);
    const exec = f.store.db.prepare('SELECT credential_ref FROM executions').pluck().get();
    expect(exec).toBe('secret:crm-next');
    // never back to a retired credential
    const back = await ops('/v1/integration-ops/rotate', {
      surface_id: 'crm',
      credential_ref: 'env:SVC_TEST_CRM',
    });
    expect(back.statusCode).toBe(409);
    expect(back.json().code).toBe('credential_retired');
    // the sealed value is all the database holds
    const files = readdirSync(f.dir.root).filter((x) => x.startsWith('svc.db'));
    for (const file of files)
      expect(readFileSync(join(f.dir.root, file)).includes(Buffer.from(NEXT))).toBe(false);
    expectNoSecret(refused.text, after.text, rotated.body, back.body);
  });

  it('an outcome that cannot be recorded is a 503 naming the intent; start-up then records it unknown', async () => {
    const finish = vi.spyOn(f.store.executions, 'finish').mockRejectedValueOnce(new Error('disk I/O error'));
    const create = body('crm.contacts.create', { team: 'a' });
    const r = await post(create);
    expect(r.status).toBe(503);
    expect(r.json).toMatchObject({
      code: 'outcome_not_recorded',
      intent_id: expect.stringMatching(/^int_/),
      execution_id: expect.stringMatching(/^exe_/),
      executed: true,
      provider: { outcome: 'succeeded', effect_id: 'c-1' },
    });
    expect(r.json.reason).toMatch(/effect may have happened/);
    expect(r.json.remedy).toContain(r.json.intent_id);
    expect(r.text).not.toContain('disk I/O');
    expect(ds.calls).toHaveLength(1);
    finish.mockRestore();
    expect(f.store.db.prepare('SELECT state FROM executions').pluck().get()).toBe('pending');
    // the same key stays claimed: the effect is never sent twice
    expect((await post(create)).status).toBe(409);
    // this daemon is alive and may still record it; a daemon starting up later judges it
    expect(await f.store.executions.markInterrupted()).toBe(0);
    const restarted = SqliteStore.open(f.dir.database, { clock: () => f.now.value });
    try {
      expect(await restarted.executions.markInterrupted()).toBe(1);
      expect(await restarted.executions.markInterrupted()).toBe(0);
    } finally {
      await restarted.close();
    }
    const last = JSON.parse(journal().at(-1)!.record);
    expect(last).toMatchObject({
      kind: 'execution',
      intent_id: r.json.intent_id,
      outcome: 'unknown',
      recovered: true,
    });
    expect(ds.calls).toHaveLength(1);
  });
});
