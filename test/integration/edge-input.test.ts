import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { consoleOf, call, type ConsoleClient, type Session } from '../helpers/console.js';
import { fullDaemon, type FullDaemon } from '../helpers/full-daemon.js';

/**
 * What the daemon and the console refuse at their edge, alike (app.inject, real SQLite):
 * list limits written other than in plain decimal digits.
 */
describe('the edge of the daemon and the console', () => {
  let d: FullDaemon;
  let c: ConsoleClient;
  let alice: Session;

  beforeAll(async () => {
    d = await fullDaemon();
    c = await consoleOf(d.f);
    alice = await c.signIn(d.tokens.alice!);
  });
  afterAll(async () => {
    await c.app.close();
    await d.close();
  });

  const daemon = async (url: string) => {
    const r = await d.app.inject({
      method: 'GET',
      url,
      headers: { authorization: `Bearer ${d.tokens.alice}` },
    });
    return { status: r.statusCode, body: r.json() as { code?: string; field?: string; reason?: string } };
  };

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
