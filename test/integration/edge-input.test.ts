import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Store } from '../../src/store/ports.js';
import { call, consoleOf, type ConsoleClient, type Session } from '../helpers/console.js';
import { fullDaemon, type FullDaemon } from '../helpers/full-daemon.js';
import { freshDatabase } from '../helpers/postgres.js';

type Answer = {
  status: number;
  body: { code?: string; field?: string; reason?: string; approval?: { approval_id: string } };
};

const cursor = (s: string, k: unknown) => Buffer.from(JSON.stringify({ s, k }), 'utf8').toString('base64url');

/**
 * What the daemon and the console refuse at their edge, alike, on either store (app.inject,
 * a real SQLite file and a real PostgreSQL server): U+0000 in any text, and list limits
 * written other than in plain decimal digits.
 */
for (const store of ['SQLite', 'PostgreSQL'] as const) {
  describe(`the edge of the daemon and the console (${store})`, () => {
    let d: FullDaemon<Store>;
    let db: Awaited<ReturnType<typeof freshDatabase>> | undefined;
    let c: ConsoleClient;
    let alice: Session;

    beforeAll(async () => {
      // No server is no skip: freshDatabase fails the suite, saying why.
      db = store === 'PostgreSQL' ? await freshDatabase() : undefined;
      d = db ? await fullDaemon({ postgres: db.url }) : await fullDaemon();
      c = await consoleOf(d.f);
      alice = await c.signIn(d.tokens.alice!);
    }, 60_000);
    afterAll(async () => {
      await c.app.close();
      await d.close();
      await db?.drop();
    });

    const daemon = async (
      url: string,
      o: { token?: string; method?: 'GET' | 'POST'; body?: string } = {},
    ): Promise<Answer> => {
      const r = await d.app.inject({
        method: o.method ?? 'GET',
        url,
        headers: {
          authorization: `Bearer ${o.token ?? d.tokens.alice}`,
          ...(o.body !== undefined ? { 'content-type': 'application/json' } : {}),
        },
        ...(o.body !== undefined ? { payload: o.body } : {}),
      });
      return { status: r.statusCode, body: r.json() };
    };

    it('refuses U+0000 in a path, a query, a cursor and a body with 400 naming the field', async () => {
      // A pending approval, so a note reaches the decision and not a 404.
      const deferred = await daemon('/v1/action', {
        token: d.tokens.bot!,
        method: 'POST',
        body: JSON.stringify({
          tenant_id: 'acme',
          actor_id: 'bot',
          capability: 'pay.send',
          action: 'write',
          task_id: 't1',
          effect_key_step: 'nul-edge',
        }),
      });
      expect(deferred.status, JSON.stringify(deferred.body)).toBe(202);
      const approvalId = deferred.body.approval?.approval_id ?? '';
      expect(approvalId).toEqual(expect.any(String));
      const before = await d.digest();

      const cases: [string, Promise<Answer>, string][] = [
        ['task id in the path', daemon('/v1/task/t1%00'), 'id'],
        ['receipt id in the path', daemon('/v1/receipts/r%00'), 'id'],
        ['task_id filter', daemon('/v1/receipts?task_id=t1%00'), 'task_id'],
        ['status filter', daemon('/v1/approvals?status=pending%00'), 'status'],
        ['task cursor', daemon(`/v1/task?cursor=${cursor('tasks', 't\u0000')}`), 'cursor'],
        ['receipt cursor', daemon(`/v1/receipts?cursor=${cursor('receipts', '\u0000')}`), 'cursor'],
        [
          'approval cursor',
          daemon(`/v1/approvals?cursor=${cursor('approvals', ['2026-06-01T12:00:00.000Z', 'a\u0000'])}`),
          'cursor',
        ],
        [
          'approval note',
          daemon(`/v1/approvals/${approvalId}/decision`, {
            method: 'POST',
            body: JSON.stringify({ decision: 'approve', note: 'ok\u0000' }),
          }),
          'note',
        ],
        [
          'access-request reason',
          daemon('/v1/access-requests', {
            token: d.tokens.bot!,
            method: 'POST',
            body: JSON.stringify({ capability: 'crm.write', reason: 'need\u0000it', duration_seconds: 3600 }),
          }),
          'reason',
        ],
        [
          'decision intent (the fast path)',
          daemon('/v1/action', {
            token: d.tokens.bot!,
            method: 'POST',
            body: JSON.stringify({
              tenant_id: 'acme',
              actor_id: 'bot',
              capability: 'crm.read',
              action: 'read',
              task_id: 't1',
              effect_key_step: 'nul-intent',
              intent: 'read\u0000',
            }),
          }),
          'intent',
        ],
        [
          'a key of params',
          daemon('/v1/action', {
            token: d.tokens.bot!,
            method: 'POST',
            body: JSON.stringify({
              tenant_id: 'acme',
              actor_id: 'bot',
              capability: 'crm.read',
              action: 'read',
              task_id: 't1',
              effect_key_step: 'nul-params',
              params: { 'a\u0000': 1 },
            }),
          }),
          'params.(key)',
        ],
      ];
      for (const [name, answer, field] of cases) {
        const r = await answer;
        expect(r.status, `${name}: ${JSON.stringify(r.body)}`).toBe(400);
        expect(r.body.code, name).toBe('invalid_request');
        expect(r.body.field, name).toBe(field);
        // A cursor is opaque: what is inside is not described, only that it is not a page's.
        if (field === 'cursor') expect(r.body.reason, name).toMatch(/^cursor: expected the next_cursor/);
        else expect(r.body.reason, name).toBe(`${field}: expected text without NUL (U+0000)`);
      }
      const consoleCases: [string, Promise<{ status: number; body: Answer['body'] }>, string][] = [
        [
          'console approval note',
          call(c, alice, `/api/approvals/${approvalId}/decision`, {
            method: 'POST',
            body: { decision: 'deny', note: 'no\u0000' },
          }),
          'note',
        ],
        ['console receipt id', call(c, alice, '/api/records/r%00'), 'id'],
        ['console records filter', call(c, alice, '/api/records?task_id=t1%00'), 'task_id'],
        ['console spend cursor', call(c, alice, '/api/spend?cursor=t%00'), 'cursor'],
      ];
      for (const [name, answer, field] of consoleCases) {
        const r = await answer;
        expect(r.status, `${name}: ${JSON.stringify(r.body)}`).toBe(400);
        expect(r.body.field, name).toBe(field);
      }
      expect(await d.digest(), 'nothing was written by a refusal').toBe(before);
      // The approval is still pending and decidable with a note that is plain text.
      const decided = await daemon(`/v1/approvals/${approvalId}/decision`, {
        method: 'POST',
        body: JSON.stringify({ decision: 'deny', note: 'not today' }),
      });
      expect(decided.status, JSON.stringify(decided.body)).toBe(200);
    });

    const DAEMON_LISTS = ['/v1/task', '/v1/approvals', '/v1/entitlements', '/v1/receipts', '/v1/work'];
    const CONSOLE_LISTS = ['/api/approvals', '/api/records', '/api/spend'];

    it('reads a limit only in plain decimal digits (semantics.md Lists), on every list of both listeners', async () => {
      const refused = [
        '1e1',
        '0x10',
        '%205',
        '5%20',
        '2.0',
        '+5',
        '05',
        '0',
        '201',
        '1_0',
        '0b1',
        'Infinity',
        '',
      ];
      for (const list of DAEMON_LISTS) {
        for (const limit of refused) {
          const r = await daemon(`${list}?limit=${limit}`);
          expect(r.status, `${list} limit=${limit}`).toBe(400);
          expect(r.body.field, `${list} limit=${limit}`).toBe('limit');
          expect(r.body.reason).toBe('limit: expected an integer from 1 to 200 in plain decimal digits');
        }
        for (const limit of ['1', '10', '200'])
          expect((await daemon(`${list}?limit=${limit}`)).status).toBe(200);
      }
      for (const list of CONSOLE_LISTS) {
        for (const limit of refused) {
          const r = await call(c, alice, `${list}?limit=${limit}`);
          expect(r.status, `${list} limit=${limit}`).toBe(400);
          expect(r.body.field, `${list} limit=${limit}`).toBe('limit');
        }
        expect((await call(c, alice, `${list}?limit=7`)).status, list).toBe(200);
      }
    });
  });
}
