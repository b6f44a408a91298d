import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Webhook } from 'standardwebhooks';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { DEFAULT_OUTBOUND_POLICY } from '../../src/notify/outbound-policy.js';
import { buildConsole, consoleRoutes } from '../../src/console/app.js';
import { consoleOpenApi } from '../../src/console/openapi.js';
import { consoleDeps } from '../../src/console/server.js';
import { call, consoleClient, type ConsoleClient, type Session } from '../helpers/console.js';
import { fixture, type Fixture } from '../helpers/fixture.js';
import { watchConformance } from '../helpers/openapi-conformance.js';
import { capability, PERMIT_ALL, register } from '../helpers/registry.js';

const SUITE = `name: reads
cases:
  - name: bot reads
    actor: bot
    capability: crm.read
    action: read
    expect: allowed
`;
const FORBID_ALL = '@id("nothing")\nforbid (principal, action, resource);\n';

/** A webhook receiver on a loopback port: what it was sent, answered 204. */
function receiver(): Promise<{
  url: string;
  got: { headers: IncomingHttpHeaders; body: string }[];
  server: Server;
}> {
  const got: { headers: IncomingHttpHeaders; body: string }[] = [];
  const server = createServer((req, res) => {
    let body = '';
    req.on('data', (d: Buffer) => (body += d.toString()));
    req.on('end', () => {
      got.push({ headers: req.headers, body });
      res.statusCode = 204;
      res.end();
    });
  });
  return new Promise((resolve) =>
    server.listen(0, '127.0.0.1', () =>
      resolve({ url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`, got, server }),
    ),
  );
}

/**
 * The console's administrative writes for tasks, notification destinations and the policy,
 * over a real SQLite store: each needs a session, its CSRF token and the administrator role,
 * and runs the CLI's own function, so the same refusals hold.
 */
describe('console task, notification and policy administration (app.inject, real SQLite)', () => {
  let f: Fixture;
  let c: ConsoleClient;
  let alice: Session;
  let tokens: Record<'bob' | 'opal' | 'audra', string>;
  let hook: Awaited<ReturnType<typeof receiver>>;
  let violations: () => string[];

  beforeEach(async () => {
    f = await fixture();
    const human = (id: string, roles: string[]) =>
      f.store.actors.add({
        tenantId: 'acme',
        id,
        kind: 'human',
        roles: roles as never,
        managerId: null,
        certSubject: null,
        displayName: null,
        createdAt: f.now.value.toISOString(),
      });
    await human('bob', ['approver']);
    await human('opal', ['operator']);
    await human('audra', ['auditor']);
    await register(f.store, 'acme', {
      caps: [capability('acme', 'crm.read', { actions: ['read'] })],
      grants: [['bot', 'crm.read']],
      tasks: [{ id: 't1', sponsor: 'alice', budget: 100_000_000n }],
      policy: PERMIT_ALL,
    });
    tokens = {
      bob: await f.token('acme', 'bob'),
      opal: await f.token('acme', 'opal'),
      audra: await f.token('acme', 'audra'),
    };
    hook = await receiver();
    const deps = consoleDeps(f.dir, f.store, {
      secure: true,
      authMode: 'token',
      clock: () => f.now.value,
      notifyOutbound: { ...DEFAULT_OUTBOUND_POLICY, allowLoopbackHttp: true },
    });
    const app = buildConsole(deps, { logger: false });
    // Every answer, refusals included, is checked against the console's own OpenAPI document.
    violations = watchConformance(
      app,
      consoleOpenApi(consoleRoutes(deps), '0', deps.sessions.cookieName),
    ).violations;
    await app.ready();
    c = consoleClient(app);
    alice = await c.signIn(f.adminToken);
  });
  afterEach(async () => {
    expect(violations()).toEqual([]);
    await c.app.close();
    await f.close();
    hook.server.close();
  });

  const post = (s: Session | undefined, url: string, body: unknown = {}, csrf?: string | null) =>
    call(c, s, url, { method: 'POST', body, ...(csrf !== undefined ? { csrf } : {}) });

  describe('refusals every write shares', () => {
    const writes: [string, unknown][] = [
      ['/api/tasks/t1/close', {}],
      ['/api/tasks/t1/budget', { budget_usd: 200 }],
      [
        '/api/notifications/destinations',
        { destination_id: 'h', kind: 'webhook', url: 'https://h.example.org/x', events: ['*'] },
      ],
      ['/api/notifications/destinations/h/remove', {}],
      ['/api/notifications/destinations/h/test', {}],
      ['/api/notifications/destinations/h/rotate', {}],
      ['/api/policies', { text: PERMIT_ALL }],
      ['/api/policies/shadow', { text: PERMIT_ALL }],
      ['/api/policies/shadow/promote', { candidate_id: 'shd_x' }],
      ['/api/policies/shadow/clear', {}],
    ];
    it.each(writes)(
      '%s: no session 401, no CSRF token 403, approver, operator and auditor 403',
      async (url, body) => {
        expect((await post(undefined, url, body)).status).toBe(401);
        const noCsrf = await post(alice, url, body, null);
        expect(noCsrf.status).toBe(403);
        expect(noCsrf.body.code).toBe('csrf_failed');
        for (const who of ['bob', 'opal', 'audra'] as const) {
          const s = await c.signIn(tokens[who]);
          const r = await post(s, url, body);
          expect(r.status).toBe(403);
          expect(r.body.reason).toBe('this route needs the administrator role');
        }
        // The role is checked before the body is read: a non-administrator learns nothing
        // of what the route would accept.
        const bob = await c.signIn(tokens.bob);
        const junk = await post(bob, url, { not_a_field: true });
        expect(junk.status).toBe(403);
        // Nothing changed: the task is open at its budget, no destination, policy version 1.
        expect((await f.store.tasks.get('acme', 't1'))?.status).toBe('active');
        expect((await f.store.tasks.get('acme', 't1'))?.budgetMicros).toBe(100_000_000n);
        expect(await f.store.notify.destinations('acme')).toEqual([]);
        expect((await f.store.policies.get('acme'))?.version).toBe(1);
        expect(await f.store.shadows.get('acme')).toBeUndefined();
      },
    );

    it('refuses unknown fields, naming them', async () => {
      const r = await post(alice, '/api/tasks/t1/budget', { budget_usd: 5, note: 'x' });
      expect(r.status).toBe(400);
      expect(r.body.reason).toMatch(/note/);
    });
  });

  describe('tasks', () => {
    it('changes a budget, names the field of a bad amount, and refuses a closed task', async () => {
      const r = await post(alice, '/api/tasks/t1/budget', { budget_usd: '250.5' });
      expect(r.status).toBe(200);
      expect(r.body).toMatchObject({ task_id: 't1', budget_usd: 250.5, previous_budget_usd: 100 });
      const bad = await post(alice, '/api/tasks/t1/budget', { budget_usd: 1.0000001 });
      expect(bad.status).toBe(400);
      expect(bad.body.field).toBe('budget_usd');
      expect(bad.body.reason).toMatch(/^budget_usd: /);
      const closed = await post(alice, '/api/tasks/t1/close');
      expect(closed.status).toBe(200);
      expect(closed.body).toMatchObject({
        task_id: 't1',
        status: 'closed',
        closed_at: f.now.value.toISOString(),
      });
      expect((await post(alice, '/api/tasks/t1/close')).status).toBe(409);
      expect((await post(alice, '/api/tasks/t1/budget', { budget_usd: 5 })).status).toBe(409);
      expect((await post(alice, '/api/tasks/nope/close')).status).toBe(404);
    });
  });

  describe('policy', () => {
    it('validates as one types: each diagnostic with its line and column; readers may, nothing is stored', async () => {
      const audra = await c.signIn(tokens.audra);
      const ok = await post(audra, '/api/policies/validate', { text: PERMIT_ALL });
      expect(ok.body).toMatchObject({ valid: true, errors: [] });
      const r = await post(audra, '/api/policies/validate', {
        text: 'permit (principal, action, resource);\nforbid (principal, action == Action::"delete", resource);\n',
      });
      expect(r.status).toBe(200);
      expect(r.body.valid).toBe(false);
      expect(r.body.errors[0]).toMatchObject({ line: 2, column: expect.any(Number) });
      expect(r.body.errors[0].message).toMatch(/delete/);
      const bob = await c.signIn(tokens.bob);
      expect((await post(bob, '/api/policies/validate', { text: PERMIT_ALL })).status).toBe(403);
    });

    it('runs a pasted suite against the editor text or the policy in force; a suite naming a file is refused', async () => {
      const opal = await c.signIn(tokens.opal);
      const inForce = await post(opal, '/api/policies/test', { suite: SUITE });
      expect(inForce.status).toBe(200);
      expect(inForce.body).toMatchObject({ passed: 1, failed: 0 });
      expect(inForce.body.suites[0].policy).toBe('tenant acme (version 1)');
      const edited = await post(opal, '/api/policies/test', { suite: SUITE, text: FORBID_ALL });
      expect(edited.body).toMatchObject({ passed: 0, failed: 1 });
      expect(edited.body.suites[0].cases[0].actual).toMatchObject({
        outcome: 'refused',
        determining: ['nothing'],
      });
      const file = await post(opal, '/api/policies/test', { suite: `policy: /etc/passwd\n${SUITE}` });
      expect(file.status).toBe(400);
      expect(file.body.field).toBe('suite');
      const invalid = await post(opal, '/api/policies/test', { suite: SUITE, text: 'permit (' });
      expect(invalid.status).toBe(400);
      expect(invalid.body.field).toBe('text');
    });

    it('installs a text as the next version, naming the console user in the history', async () => {
      const r = await post(alice, '/api/policies', { text: FORBID_ALL, message: 'lock down' });
      expect(r.status).toBe(200);
      expect(r.body).toMatchObject({ version: 2, changed: true });
      const [v] = await f.store.policies.history('acme', { limit: 1 });
      expect(v).toMatchObject({ version: 2, setBy: 'console:alice', message: 'lock down' });
      const bad = await post(alice, '/api/policies', { text: 'permit (' });
      expect(bad.status).toBe(400);
      expect(bad.body.field).toBe('text');
      expect((await f.store.policies.get('acme'))?.version).toBe(2);
    });

    it('sets a shadow, refuses to promote one replaced since the page read it, promotes the one shown', async () => {
      const first = await post(alice, '/api/policies/shadow', { text: FORBID_ALL });
      expect(first.status).toBe(200);
      const second = await post(alice, '/api/policies/shadow', { text: `${FORBID_ALL}\n` });
      const stale = await post(alice, '/api/policies/shadow/promote', {
        candidate_id: first.body.candidate_id,
      });
      expect(stale.status).toBe(409);
      expect(stale.body.field).toBe('candidate_id');
      expect((await f.store.policies.get('acme'))?.version).toBe(1);
      const promoted = await post(alice, '/api/policies/shadow/promote', {
        candidate_id: second.body.candidate_id,
        message: 'after a week in shadow',
      });
      expect(promoted.status).toBe(200);
      expect(promoted.body).toMatchObject({ version: 2, candidate_id: second.body.candidate_id });
      expect(await f.store.shadows.get('acme')).toBeUndefined();
      await post(alice, '/api/policies/shadow', { text: FORBID_ALL });
      expect((await post(alice, '/api/policies/shadow/clear')).body).toEqual({
        tenant_id: 'acme',
        cleared: true,
      });
    });
  });

  describe('notification destinations', () => {
    it('adds a webhook (its secret shown once), tests it signed, and removes it', async () => {
      const added = await post(alice, '/api/notifications/destinations', {
        destination_id: 'local-hook',
        kind: 'webhook',
        url: hook.url,
        events: ['approval.*'],
      });
      expect(added.status).toBe(200);
      expect(added.body.secret).toMatch(/^whsec_/);
      const listed = await call(c, alice, '/api/notifications');
      expect(JSON.stringify(listed.body)).not.toContain(added.body.secret);
      const tested = await post(alice, '/api/notifications/destinations/local-hook/test');
      expect(tested.status).toBe(200);
      expect(tested.body).toMatchObject({ outcome: 'delivered', status: 204 });
      expect(hook.got).toHaveLength(1);
      const sent = hook.got[0]!;
      // Standard Webhooks' own verifier, at the fixture's time (it checks the signed timestamp).
      const at = Number(sent.headers['webhook-timestamp']);
      expect(at).toBe(f.now.value.getTime() / 1000);
      vi.useFakeTimers({ now: f.now.value, toFake: ['Date'] });
      try {
        const event = new Webhook(added.body.secret).verify(
          sent.body,
          sent.headers as Record<string, string>,
        );
        expect(event).toMatchObject({ type: 'approval.requested', data: { test: true } });
      } finally {
        vi.useRealTimers();
      }
      // A new signing secret, shown once; the old one keeps signing beside it for 24 hours.
      const rotated = await post(alice, '/api/notifications/destinations/local-hook/rotate');
      expect(rotated.status).toBe(200);
      expect(rotated.body.secret).toMatch(/^whsec_/);
      expect(rotated.body.secret).not.toBe(added.body.secret);
      expect(rotated.body.previous_valid_until).toBe(
        new Date(f.now.value.getTime() + 86_400_000).toISOString(),
      );
      expect((await post(alice, '/api/notifications/destinations/local-hook/test')).body.outcome).toBe(
        'delivered',
      );
      const again = hook.got[1]!;
      expect(String(again.headers['webhook-signature']).split(' ')).toHaveLength(2);
      vi.useFakeTimers({ now: f.now.value, toFake: ['Date'] });
      try {
        for (const secret of [added.body.secret, rotated.body.secret]) {
          expect(
            new Webhook(secret).verify(again.body, again.headers as Record<string, string>),
          ).toMatchObject({
            data: { test: true },
          });
        }
      } finally {
        vi.useRealTimers();
      }
      const given = await post(alice, '/api/notifications/destinations/local-hook/rotate', {
        secret: 'mine',
      });
      expect(given.status).toBe(400);
      expect(given.body.field).toBe('secret');
      const removed = await post(alice, '/api/notifications/destinations/local-hook/remove');
      expect(removed.body).toEqual({ tenant_id: 'acme', destination_id: 'local-hook', removed: true });
      expect(await f.store.secrets.get('acme', 'notify.local-hook')).toBeUndefined();
      expect((await post(alice, '/api/notifications/destinations/local-hook/remove')).status).toBe(404);
    });

    it('checks the URL as svc notify add does and names the field; a given secret is never sent back', async () => {
      for (const [url, expected] of [
        ['http://hooks.example.org/x', 'url'],
        ['https://user:pw@hooks.example.org/x', 'url'],
      ] as const) {
        const r = await post(alice, '/api/notifications/destinations', {
          destination_id: 'h',
          kind: 'webhook',
          url,
          events: ['*'],
        });
        expect(r.status).toBe(400);
        expect(r.body.field).toBe(expected);
      }
      const secretForWebhook = await post(alice, '/api/notifications/destinations', {
        destination_id: 'h',
        kind: 'webhook',
        url: 'https://hooks.example.org/x',
        events: ['*'],
        secret: 'mine',
      });
      expect(secretForWebhook.body).toMatchObject({ field: 'secret' });
      expect(secretForWebhook.body.reason).toMatch(/^secret: /);
      const chat = await post(alice, '/api/notifications/destinations', {
        destination_id: 'team-chat',
        kind: 'chat',
        channel: 'C0APPROVALS',
        events: ['approval.*'],
        secret: 'xoxb-never-shown-again',
      });
      expect(chat.status).toBe(200);
      expect(chat.body.secret).toBeNull();
      expect(chat.raw.toString()).not.toContain('xoxb-never-shown-again');
      const listed = await call(c, alice, '/api/notifications');
      expect(listed.raw.toString()).not.toContain('xoxb-never-shown-again');
      const rotated = await post(alice, '/api/notifications/destinations/team-chat/rotate', {
        secret: 'xoxb-the-new-one',
      });
      expect(rotated.body).toEqual({
        tenant_id: 'acme',
        destination_id: 'team-chat',
        kind: 'chat',
        secret: null,
        previous_valid_until: null,
      });
      expect(rotated.raw.toString()).not.toContain('xoxb-the-new-one');
      const none = await post(alice, '/api/notifications/destinations/team-chat/rotate');
      expect(none.body).toMatchObject({ field: 'secret' });
      const remind = await post(alice, '/api/notifications/destinations', {
        destination_id: 'r',
        kind: 'webhook',
        url: 'https://hooks.example.org/x',
        events: ['decision.refused'],
        remind_after: '10m',
      });
      expect(remind.body.field).toBe('remind_after');
    });
  });
});
