import { createHash } from 'node:crypto';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { call, consoleOf, type ConsoleClient, type Session } from '../helpers/console.js';
import { fixture, type Fixture } from '../helpers/fixture.js';

const V1 = 'permit (principal, action, resource);\n';
const V2 = '// tightened\nforbid (principal, action, resource);\n';
const sha256 = (text: string) => createHash('sha256').update(Buffer.from(text, 'utf8')).digest('hex');

/** The console's policy history routes (app.inject, real SQLite): who may read them and what they return. */
describe('console policy history', () => {
  let f: Fixture;
  let c: ConsoleClient;
  const sessions: Record<string, Session> = {};
  const at = (day: number) => `2026-02-0${day}T09:00:00.000Z`;

  beforeEach(async () => {
    f = await fixture();
    for (const [id, roles] of [
      ['audrey', ['auditor']],
      ['opal', ['operator']],
      ['bob', ['approver']],
    ] as const) {
      await f.store.actors.add({
        tenantId: 'acme',
        id,
        kind: 'human',
        roles: [...roles],
        managerId: null,
        certSubject: null,
        displayName: null,
        createdAt: at(1),
      });
    }
    await f.store.policies.set('acme', V1, at(1), { setBy: 'alice', message: 'open' });
    await f.store.policies.set('acme', V2, at(2), { setBy: 'bob', message: null });
    await f.store.policies.set('acme', V1, at(3), { setBy: 'alice', message: 'rollback to version 1' });
    c = await consoleOf(f);
    sessions.alice = await c.signIn(f.adminToken);
    for (const id of ['audrey', 'opal', 'bob']) sessions[id] = await c.signIn(await f.token('acme', id));
  });
  afterEach(async () => {
    await c.app.close();
    await f.close();
  });

  const get = (who: string | undefined, url: string) =>
    call(c, who === undefined ? undefined : sessions[who], url);

  it('lists the versions newest first, a page at a time, for an administrator, operator or auditor', async () => {
    const version = (v: number, text: string, setBy: string, message: string | null, day: number) => ({
      version: v,
      sha256: sha256(text),
      set_by: setBy,
      set_at: at(day),
      message,
      current: v === 3,
    });
    for (const who of ['alice', 'opal', 'audrey']) {
      const r = await get(who, '/api/policies/history');
      expect(r.status, who).toBe(200);
      expect(r.body).toEqual({
        items: [
          version(3, V1, 'alice', 'rollback to version 1', 3),
          version(2, V2, 'bob', null, 2),
          version(1, V1, 'alice', 'open', 1),
        ],
        next_cursor: null,
      });
    }
    const first = await get('audrey', '/api/policies/history?limit=2');
    expect(first.body.items.map((v: { version: number }) => v.version)).toEqual([3, 2]);
    const rest = await get('audrey', `/api/policies/history?limit=2&cursor=${first.body.next_cursor}`);
    expect(rest.body).toMatchObject({ items: [{ version: 1 }], next_cursor: null });
    expect((await get('audrey', '/api/policies/history?cursor=nope')).body).toMatchObject({
      code: 'invalid_request',
      field: 'cursor',
    });
  });

  it('returns one version with its text, and a unified diff between any two', async () => {
    expect((await get('audrey', '/api/policies/versions/2')).body).toEqual({
      version: 2,
      sha256: sha256(V2),
      set_by: 'bob',
      set_at: at(2),
      message: null,
      current: false,
      text: V2,
    });
    const d = await get('opal', '/api/policies/diff?from=3&to=2');
    expect(d.status).toBe(200);
    expect(d.body.from).toMatchObject({ version: 3, current: true });
    expect(d.body.to).toMatchObject({ version: 2, current: false });
    expect(d.body.diff).toBe(
      [
        `--- v3\t${at(3)} sha256:${sha256(V1)}`,
        `+++ v2\t${at(2)} sha256:${sha256(V2)}`,
        '@@ -1,1 +1,2 @@',
        '-permit (principal, action, resource);',
        '+// tightened',
        '+forbid (principal, action, resource);',
        '',
      ].join('\n'),
    );
    expect((await get('opal', '/api/policies/diff?from=1&to=3')).body.diff).toBe('');
  });

  it('names the field of a version that is not one, or not stored', async () => {
    expect(await get('alice', '/api/policies/versions/0')).toMatchObject({
      status: 400,
      body: {
        code: 'invalid_request',
        field: 'version',
        reason: 'version: expected a policy version: a whole number from 1',
      },
    });
    expect(await get('alice', '/api/policies/versions/9')).toMatchObject({
      status: 404,
      body: {
        code: 'not_found',
        field: 'version',
        reason: 'version: tenant acme has no policy version 9; its versions are 1 to 3',
      },
    });
    expect(await get('alice', '/api/policies/diff?from=1&to=1e1')).toMatchObject({
      status: 400,
      body: { field: 'to' },
    });
    expect(await get('alice', '/api/policies/diff?from=12&to=1')).toMatchObject({
      status: 404,
      body: { field: 'from' },
    });
  });

  it('is refused to a human without a reading role, and to no session', async () => {
    for (const url of [
      '/api/policies/history',
      '/api/policies/versions/1',
      '/api/policies/diff?from=1&to=2',
    ]) {
      expect((await get('bob', url)).status, url).toBe(403);
      expect((await get(undefined, url)).status, url).toBe(401);
    }
  });
});
