import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { buildConsole } from '../../src/console/app.js';
import { consoleDeps } from '../../src/console/server.js';
import { parseToken } from '../../src/core/token.js';
import { addActor } from '../../src/provisioning/actor.js';
import { call, consoleClient, type ConsoleClient, type Session } from '../helpers/console.js';
import { fixture, type Fixture } from '../helpers/fixture.js';
import { logCapture } from '../helpers/log-capture.js';
import { as } from '../helpers/seed.js';
import { capability, register } from '../helpers/registry.js';

/**
 * The console's people administration over a real SQLite store: every write needs a session,
 * its CSRF token and the administrator role; bad fields are named as the body names them;
 * reads list tokens by public id only.
 */
describe('console people administration (app.inject, real SQLite)', () => {
  let f: Fixture;
  let c: ConsoleClient;
  let alice: Session;
  let bob: Session;
  let audra: Session;
  let log: ReturnType<typeof logCapture>;
  const post = (s: Session | undefined, url: string, body: unknown, csrf?: string | null) =>
    call(c, s, url, { method: 'POST', body, ...(csrf !== undefined ? { csrf } : {}) });

  beforeEach(async () => {
    f = await fixture();
    const now = f.now.value;
    await addActor(
      f.store,
      { tenantId: 'acme', id: 'bob', kind: 'human', roles: ['approver', 'operator'] },
      now,
    );
    await addActor(f.store, { tenantId: 'acme', id: 'audra', kind: 'human', roles: ['auditor'] }, now);
    await register(f.store, 'acme', { caps: [capability('acme', 'crm.read', { actions: ['read'] })] });
    // A real pino logger into memory: what an administrator did is logged, never a secret.
    log = logCapture();
    const deps = consoleDeps(f.dir, f.store, { secure: true, authMode: 'token', clock: () => f.now.value });
    const app = buildConsole(deps, { logger: { stream: log.stream } });
    await app.ready();
    c = consoleClient(app);
    alice = await c.signIn(f.adminToken);
    bob = await c.signIn(await f.token('acme', 'bob'));
    audra = await c.signIn(await f.token('acme', 'audra'));
  });
  afterEach(async () => {
    await c.app.close();
    await f.close();
  });

  const writes: [string, unknown][] = [
    ['/api/actors', { actor_id: 'dana', kind: 'human', roles: ['approver'] }],
    ['/api/tokens', { actor_id: 'bob' }],
    ['/api/permissions', { actor_id: 'bob', capability: 'crm.read' }],
    ['/api/permissions/revoke', { actor_id: 'bob', capability: 'crm.read' }],
    ['/api/capabilities', { name: 'crm.write', tier: 1, actions: ['write'] }],
  ];

  it('refuses every write without a session, without the CSRF token, and to a human who is not an administrator', async () => {
    const tokenId = (await post(alice, '/api/tokens', { actor_id: 'audra' })).body.token_id as string;
    const before = await f.store.actors.list('acme');
    for (const [url, body] of [...writes, [`/api/tokens/${tokenId}/revoke`, {}] as [string, unknown]]) {
      const none = await post(undefined, url, body);
      expect([url, none.status, none.body.code]).toEqual([url, 401, 'unauthenticated']);
      const noCsrf = await post(alice, url, body, null);
      expect([url, noCsrf.status, noCsrf.body.code, noCsrf.body.field]).toEqual([
        url,
        403,
        'csrf_failed',
        'x-csrf-token',
      ]);
      // bob approves and operates, but is no administrator; the body is not even read.
      const approver = await post(bob, url, { not: 'read' });
      expect([url, approver.status, approver.body.code, approver.body.reason]).toEqual([
        url,
        403,
        'forbidden',
        'this route needs the administrator role',
      ]);
      const auditor = await post(audra, url, body);
      expect([url, auditor.status]).toEqual([url, 403]);
    }
    expect(await f.store.actors.list('acme')).toEqual(before);
    expect((await f.store.tokens.find(tokenId))?.revokedAt).toBeNull();
    expect(await f.store.permissions.list('acme')).toEqual([]);
    expect(await f.store.capabilities.get('acme', 'crm.write')).toBeUndefined();
  });

  it('adds humans, agents and services with manager and roles, and names a wrong field as the body does', async () => {
    const human = await post(alice, '/api/actors', {
      actor_id: 'dana',
      kind: 'human',
      roles: ['approver', 'manager'],
      display_name: 'Dana K.',
    });
    expect(human.status).toBe(200);
    expect(human.body).toMatchObject({ actor_id: 'dana', kind: 'human', roles: ['approver', 'manager'] });
    const agent = await post(alice, '/api/actors', { actor_id: 'crm-bot', kind: 'agent', manager: 'dana' });
    expect(agent.body).toMatchObject({ actor_id: 'crm-bot', kind: 'agent', manager: 'dana', roles: [] });
    expect((await post(alice, '/api/actors', { actor_id: 'billing', kind: 'service' })).status).toBe(200);

    const cases: [unknown, number, string, RegExp][] = [
      [{ actor_id: 'x', kind: 'agent' }, 400, 'manager', /every agent names its accountable human manager/],
      [
        { actor_id: 'x', kind: 'agent', manager: 'billing' },
        400,
        'manager',
        /billing is not a registered human/,
      ],
      [
        { actor_id: 'x', kind: 'service', roles: ['operator'] },
        400,
        'roles',
        /^roles: only human actors carry roles/,
      ],
      [{ actor_id: 'Not A Slug', kind: 'human' }, 400, 'actor_id', /^actor_id: expected/],
      [{ actor_id: 'x', kind: 'robot' }, 400, 'kind', /^kind: /],
      [
        { actor_id: 'x', kind: 'human', display_name: 'a'.repeat(201) },
        400,
        'display_name',
        /^display_name: /,
      ],
      [
        { actor_id: 'x', kind: 'human', chat_user_id: 'me@example.org' },
        400,
        'chat_user_id',
        /^chat_user_id: expected the platform user id/,
      ],
      [{ actor_id: 'x', kind: 'human', extra: 1 }, 400, 'extra', /unknown field/],
    ];
    for (const [body, status, field, reason] of cases) {
      const r = await post(alice, '/api/actors', body);
      expect([r.status, r.body.field]).toEqual([status, field]);
      expect(r.body.reason).toMatch(reason);
    }
    expect((await post(alice, '/api/actors', { actor_id: 'dana', kind: 'human' })).status).toBe(409);
    expect(await f.store.actors.get('acme', 'x')).toBeUndefined();
  });

  it('issues a token once, lists it by public id only, and revokes it, which ends the sessions signed in with it', async () => {
    const issued = await post(alice, '/api/tokens', { actor_id: 'bob', ttl: '12h', label: 'laptop' });
    expect(issued.status).toBe(200);
    expect(issued.headers['cache-control']).toBe('no-store');
    expect(issued.body).toMatchObject({ actor_id: 'bob', tenant_id: 'acme' });
    expect(Date.parse(issued.body.expires_at) - f.now.value.getTime()).toBe(12 * 3600_000);
    const secret = issued.body.token as string;
    const lines = log
      .text()
      .split('\n')
      .filter((l) => l.includes('console administration'))
      .map((l) => JSON.parse(l) as { admin: unknown });
    expect(lines.map((l) => l.admin)).toEqual([
      { action: 'token.issue', by: 'alice', actor_id: 'bob', token_id: issued.body.token_id },
    ]);
    // The secret part whole: it is base64url, so it may hold '_' itself, and a split on '_'
    // could leave a fragment of a letter or two that any log line contains.
    expect(log.text()).not.toContain(parseToken(secret)!.secret);
    const withIt = await c.signIn(secret);

    const person = await call(c, alice, '/api/people/bob');
    expect(person.status).toBe(200);
    const row = person.body.tokens.find((t: { token_id: string }) => t.token_id === issued.body.token_id);
    expect(row).toMatchObject({ label: 'laptop', state: 'active', revoked_at: null });
    expect(person.raw.toString()).not.toContain(parseToken(secret)!.secret);
    const list = await call(c, audra, '/api/people?kind=human');
    expect(list.raw.toString()).not.toContain(parseToken(secret)!.secret);
    expect(list.body.items.map((p: { actor_id: string }) => p.actor_id).sort()).toEqual([
      'alice',
      'audra',
      'bob',
    ]);

    const bad: [string, unknown, string][] = [
      ['/api/tokens', { actor_id: 'bob', ttl: '5y' }, 'ttl'],
      ['/api/tokens', { actor_id: 'bob', label: 'x'.repeat(201) }, 'label'],
    ];
    for (const [url, body, field] of bad) expect((await post(alice, url, body)).body.field).toBe(field);
    expect((await post(alice, '/api/tokens', { actor_id: 'nobody' })).status).toBe(404);
    expect((await post(alice, '/api/tokens/zzz/revoke', {})).body.field).toBe('id');
    expect((await post(alice, '/api/tokens/0123456789abcdef/revoke', {})).status).toBe(404);

    const revoked = await post(alice, `/api/tokens/${issued.body.token_id}/revoke`, {});
    expect(revoked.body).toEqual({ token_id: issued.body.token_id, tenant_id: 'acme', revoked: true });
    expect((await call(c, withIt, '/api/session')).status).toBe(401);
    const after = (await call(c, alice, '/api/people/bob')).body.tokens.find(
      (t: { token_id: string }) => t.token_id === issued.body.token_id,
    );
    expect(after.state).toBe('revoked');
  });

  it('grants and revokes standing permissions; the People page shows them', async () => {
    const g = await post(alice, '/api/permissions', { actor_id: 'bob', capability: 'crm.read' });
    expect(g.body).toMatchObject({ actor_id: 'bob', capability: 'crm.read', result: 'created' });
    expect(
      (await post(alice, '/api/permissions', { actor_id: 'bob', capability: 'crm.read' })).body.result,
    ).toBe('unchanged');
    expect((await call(c, alice, '/api/people/bob')).body.permissions).toEqual([
      { capability: 'crm.read', granted_at: f.now.value.toISOString() },
    ]);
    expect(
      (await post(alice, '/api/permissions', { actor_id: 'nobody', capability: 'crm.read' })).body.field,
    ).toBe(undefined);
    expect((await post(alice, '/api/permissions', { actor_id: 'bob', capability: 'no.such' })).status).toBe(
      404,
    );
    expect(
      (await post(alice, '/api/permissions/revoke', { actor_id: 'bob', capability: 'crm.read' })).body,
    ).toEqual({
      tenant_id: 'acme',
      actor_id: 'bob',
      capability: 'crm.read',
      revoked: true,
    });
    expect(
      (await post(alice, '/api/permissions/revoke', { actor_id: 'bob', capability: 'crm.read' })).status,
    ).toBe(404);
    expect(await f.store.permissions.list('acme')).toEqual([]);
  });

  it('registers and edits a capability with the same rules as the CLI', async () => {
    const created = await post(alice, '/api/capabilities', {
      name: 'payments.refund',
      tier: 4,
      actions: ['write'],
      irreversible: true,
      cost_usd: 25,
      approvers: ['bob'],
    });
    expect(created.body).toMatchObject({
      result: 'created',
      cost_usd: 25,
      approvers: ['bob'],
      custody: 'grant',
    });
    const edited = await post(alice, '/api/capabilities', {
      name: 'payments.refund',
      tier: 5,
      actions: ['write', 'read'],
      irreversible: true,
      cost_usd: 25,
      approvers: ['bob'],
    });
    expect(edited.body).toMatchObject({ result: 'updated', changed: ['tier', 'actions'] });
    const bad: [unknown, string][] = [
      [{ name: 'x', tier: 1, actions: ['read'], approvers: ['billing-none'] }, 'approvers'],
      [{ name: 'x', tier: 1, actions: ['read'], cost_usd: 0.0000001 }, 'cost_usd'],
      [{ name: 'X!', tier: 1, actions: ['read'] }, 'name'],
      [{ name: 'x', tier: 10, actions: ['read'] }, 'tier'],
      [{ name: 'x', tier: 1, actions: ['read'], custody: 'brokered' }, 'surface'],
    ];
    for (const [body, field] of bad)
      expect([field, (await post(alice, '/api/capabilities', body)).body.field]).toEqual([field, field]);
    expect(await f.store.capabilities.get('acme', 'x')).toBeUndefined();
  });

  it("revokes an entitlement through the daemon route's store function: its rule of who may, and its journal record", async () => {
    await register(f.store, 'acme', {
      caps: [capability('acme', 'crm.export', { actions: ['read'], requestable: true })],
    });
    const bot = await f.token('acme', 'bot');
    // bot's manager is alice (the fixture's)
    const manager = f.adminToken;
    const asked = await as(f, bot, '/v1/access-requests', {
      method: 'POST',
      body: { capability: 'crm.export', reason: 'monthly export', duration_seconds: 3600 },
    });
    expect(asked.status).toBe(201);
    const cards = (await as(f, manager, '/v1/manager-cards')).body as { card_id: string }[];
    const decided = await as(f, manager, '/v1/manager-cards/decide', {
      method: 'POST',
      body: { card_id: cards[0]!.card_id, decision: 'approve' },
    });
    const id = decided.body.entitlement.entitlement_id as string;
    expect((await call(c, alice, '/api/people/bot')).body.entitlements).toEqual([
      expect.objectContaining({
        entitlement_id: id,
        capability: 'crm.export',
        status: 'active',
        granted_by: 'alice',
      }),
    ]);
    const url = `/api/entitlements/${id}/revoke`;
    expect((await post(undefined, url, {})).status).toBe(401);
    expect((await post(alice, url, {}, null)).body.code).toBe('csrf_failed');
    // An auditor reads it but may not revoke it.
    expect((await post(audra, url, {})).body).toMatchObject({ code: 'not_a_revoker' });
    const journaled = async () => {
      const snap = await f.store.journalExports.snapshot('acme');
      const records: { step?: string; actor_id?: string }[] = [];
      for await (const page of snap.records(snap.size))
        for (const r of page) records.push(JSON.parse(r.record));
      await snap.close();
      return records;
    };
    const before = (await journaled()).length;
    const done = await post(alice, url, { note: 'project over' });
    expect(done.status).toBe(200);
    expect(done.body.entitlement).toMatchObject({ status: 'revoked', revoked_by: 'alice' });
    const records = await journaled();
    expect(records).toHaveLength(before + 1);
    expect(JSON.stringify(records.at(-1))).toMatch(
      /entitlement_revoked[\s\S]*alice|alice[\s\S]*entitlement_revoked/,
    );
    expect(done.body.receipt.sequence).toBe(records.length);
    expect((await post(alice, url, {})).body.code).toBe('not_revocable');
  });
});
