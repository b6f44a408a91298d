import { connect, type AddressInfo, type Socket } from 'node:net';
import fc from 'fast-check';
import { request } from 'undici';
import type { LightMyRequestResponse } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { z } from 'zod';
import { DEFAULT_SERVER_LIMITS } from '../../src/http/limits.js';
import type { AnyRoute } from '../../src/http/route.js';
import { consoleOf } from '../helpers/console.js';
import type { Store } from '../../src/store/ports.js';
import { concreteUrl, fullDaemon, type FullDaemon } from '../helpers/full-daemon.js';
import { leakScan } from '../helpers/leak-scan.js';
import { freshDatabase } from '../helpers/postgres.js';

/**
 * Hostile input over every route of the daemon's own route table (a new route is covered
 * without editing this file): never a 5xx, every refusal a coded JSON body, every 400
 * naming the field in its reason, and nothing written by a refused request.
 */
const SEED = 20261010;
const RUNS_PER_ROUTE = 30;

const LONE = ['\ud800', '\udfff', 'ok\ud83d', '\udc00tail'];
const hugeString = fc.integer({ min: 1_000, max: 60_000 }).map((n) => 'x'.repeat(n));
const hostileString = fc.oneof(
  fc.string({ maxLength: 40 }),
  fc.constantFrom(...LONE),
  hugeString,
  fc.constantFrom('', ' ', '../../etc/passwd', 'a\u0000b', '%00', 'zzz_00000000000000000000000000000000'),
);
const hostileNumber = fc.oneof(
  fc.double(),
  fc.constantFrom(0, -0, -1, 1e308, -1e308, 5e-324, 2 ** 53 + 1, 1e21, 0.1234567, 1e12 + 1),
  fc.integer(),
);
const hostileValue: fc.Arbitrary<unknown> = fc.oneof(
  hostileString,
  hostileNumber,
  fc.boolean(),
  fc.constant(null),
  fc.array(fc.oneof(hostileString, hostileNumber), { maxLength: 4 }),
  fc.dictionary(fc.string({ maxLength: 8 }), fc.oneof(hostileString, hostileNumber), { maxKeys: 4 }),
  fc.jsonValue({ maxDepth: 4 }),
);

/** The field names the route's body schema declares, so hostile values reach its validation. */
function fieldsOf(schema: z.ZodType | undefined): string[] {
  const shape = (schema as unknown as { shape?: Record<string, unknown> } | undefined)?.shape;
  const known = shape ? Object.keys(shape) : [];
  return [...known, 'params', 'tenant_id', 'unexpected_field'];
}

/** Text that no JSON.stringify produces: the parser's own edge cases. */
function hostileText(fields: string[]): fc.Arbitrary<string | Buffer> {
  const field = fc.constantFrom(...fields);
  return fc.oneof(
    fc
      .tuple(field, fc.integer({ min: 33, max: 20_000 }))
      .map(([f, n]) => `{"${f}":${'['.repeat(n)}${']'.repeat(n)}}`),
    fc.integer({ min: 33, max: 20_000 }).map((n) => '{"a":'.repeat(n)),
    fc
      .tuple(field, fc.constantFrom('1e309', '-1e999', '123456789012345678901234567890', '1E+400'))
      .map(([f, n]) => `{"${f}":${n}}`),
    field.map((f) => `{"${f}":"a","${f}":"b"}`),
    field.map((f) => `{"${f}":"\\ud800"}`),
    field.map((f) => `{"${f}":"x","__proto__":{"admin":true}}`),
    fc.constantFrom('', 'null', '[]', '"text"', '{', '{"a":}', 'tru', '\ufeff{}', '{"a":1}garbage'),
    fc
      .uint8Array({ minLength: 1, maxLength: 64 })
      .map((b) => Buffer.concat([Buffer.from('{"a":"'), b, Buffer.from('"}')])),
    fc.constant(Buffer.from([0x7b, 0x22, 0xff, 0xfe, 0x22, 0x3a, 0x31, 0x7d])),
  );
}

/** Cursors that decode (base64url, JSON, the right list) to a key holding U+0000. */
const NUL_CURSORS = [
  { s: 'tasks', k: 't\u0000' },
  { s: 'approvals', k: ['2026-01-01T00:00:00.000Z', 'a\u0000'] },
  { s: 'entitlements', k: ['2026-01-01T00:00:00.000Z', 'e\u0000'] },
  { s: 'receipts', k: '\u0000' },
].map((c) => Buffer.from(JSON.stringify(c), 'utf8').toString('base64url'));

interface Hostile {
  url: string;
  token: 'alice' | 'bot' | 'svc1';
  contentType: string;
  payload?: string | Buffer;
}

function hostileRequest(route: AnyRoute): fc.Arbitrary<Hostile> {
  const pathValue = fc.oneof(
    fc.constant('zzz_00000000000000000000000000000000'),
    fc.constantFrom(
      '%ED%A0%80',
      '%00',
      't1%00',
      '..%2F..%2Fetc',
      '%FF',
      'a'.repeat(3000),
      '%25',
      'UPPER',
      '-',
    ),
    fc.string({ maxLength: 30 }).map(encodeURIComponent),
  );
  const queryKeys = ['limit', 'cursor', 'status', 'task_id', 'work_id', 'actor_id', 'x'];
  const query = fc.array(
    fc.tuple(
      fc.constantFrom(...queryKeys),
      fc.oneof(
        hostileString.map((s) => encodeURIComponent(s.isWellFormed() ? s : 'x')),
        fc.constantFrom('-1', '0', '201', '1e309', '1.5', 'NaN', '%ED%A0%80', '%FF', 'pending', '[]'),
        fc.constantFrom('%00', 't%00', '1e1', '0x10', '%205', '2.0', ...NUL_CURSORS),
      ),
    ),
    { maxLength: 4 },
  );
  const fields = fieldsOf(route.body);
  const jsonBody = fc.oneof(
    fc
      .dictionary(fc.constantFrom(...fields), hostileValue, { maxKeys: 5 })
      .map((o) => JSON.stringify(o) as string | Buffer),
    hostileValue.map((v) => JSON.stringify(v) ?? 'null'),
    hostileText(fields),
  );
  const contentType = fc.oneof(
    { weight: 6, arbitrary: fc.constant('application/json') },
    fc.constantFrom(
      'text/plain',
      'application/x-www-form-urlencoded',
      'application/json; charset=latin1',
      'multipart/form-data; boundary=x',
    ),
  );
  return fc
    .record({
      path: pathValue,
      query,
      token: fc.constantFrom('alice' as const, 'bot' as const, 'svc1' as const),
      contentType,
      payload: route.method === 'POST' ? jsonBody : fc.constant(undefined),
    })
    .map(({ path, query: q, token, contentType: ct, payload }) => {
      const qs = q.map(([k, v]) => `${k}=${v}`).join('&');
      const url = concreteUrl(route, path) + (qs ? `?${qs}` : '');
      return payload === undefined
        ? { url, token, contentType: ct }
        : { url, token, contentType: ct, payload };
    });
}

/** fast-check's default report prints the whole counterexample: megabytes of hostile text. */
function shortReport<T>(out: fc.RunDetails<T>): void {
  if (!out.failed) return;
  const error = out.errorInstance instanceof Error ? out.errorInstance.message : String(out.errorInstance);
  throw new Error(`seed ${out.seed}, path ${out.counterexamplePath ?? ''}: ${error.slice(0, 3000)}`);
}

/**
 * The suite, once per store: PostgreSQL refuses what SQLite stores (U+0000 in text), so a
 * refusal at the edge is proved on both, with the same judge.
 */
for (const store of ['SQLite', 'PostgreSQL'] as const) {
  describe(`hostile input over every daemon route (app.inject, ${store})`, () => {
    let d: FullDaemon<Store>;
    let db: Awaited<ReturnType<typeof freshDatabase>> | undefined;
    const seen = { requests: 0, byStatus: new Map<number, number>() };

    beforeAll(async () => {
      // No server is no skip: freshDatabase fails the suite, saying why.
      db = store === 'PostgreSQL' ? await freshDatabase() : undefined;
      d = db ? await fullDaemon({ postgres: db.url }) : await fullDaemon();
    }, 60_000);
    afterAll(async () => {
      leakScan.check(d.logLines.join(''), `daemon log of the hostile suite (${store})`);
      await d.close();
      await db?.drop();
    });

    /** What every answer must satisfy, whatever was sent. */
    const judge = async (r: LightMyRequestResponse, before: string, what: string) => {
      seen.requests++;
      seen.byStatus.set(r.statusCode, (seen.byStatus.get(r.statusCode) ?? 0) + 1);
      leakScan.check(r.body, `response to ${what}`);
      expect(r.statusCode, what).toBeLessThan(500);
      if (r.statusCode < 400) return;
      expect(await d.digest(), `${what}: a refused request wrote nothing`).toBe(before);
      const body = r.json() as { code?: unknown; reason?: unknown; field?: unknown };
      expect(typeof body.code, `${what}: ${r.body.slice(0, 300)}`).toBe('string');
      expect(typeof body.reason, what).toBe('string');
      // A reason names what was wrong; it does not echo what was sent.
      expect((body.reason as string).length, what).toBeLessThan(600);
      if (r.statusCode === 400) {
        expect(typeof body.field, `${what}: ${r.body.slice(0, 300)}`).toBe('string');
        expect(body.reason as string, what).toContain(body.field as string);
      }
    };

    it('mounts exactly the route table', () => {
      expect(d.routes.length).toBeGreaterThanOrEqual(30);
      for (const r of d.routes) expect(d.app.hasRoute({ method: r.method, url: r.url }), r.url).toBe(true);
    });

    it(
      'never answers 5xx, always names the field, never writes on a refusal',
      { timeout: 300_000 },
      async () => {
        for (const route of d.routes) {
          await fc.assert(
            fc.asyncProperty(hostileRequest(route), async (h) => {
              const before = await d.digest();
              const r = await d.app.inject({
                method: route.method,
                url: h.url,
                headers: {
                  authorization: `Bearer ${d.tokens[h.token]}`,
                  ...(h.payload === undefined ? {} : { 'content-type': h.contentType }),
                },
                ...(h.payload === undefined ? {} : { payload: h.payload }),
              });
              await judge(r, before, `${route.method} ${h.url.slice(0, 120)} (${h.contentType})`);
            }),
            { seed: SEED, numRuns: RUNS_PER_ROUTE, endOnFailure: true, reporter: shortReport },
          );
        }
        // The suite exercised refusals, not just one answer.
        expect(seen.requests).toBeGreaterThanOrEqual(d.routes.length * RUNS_PER_ROUTE);
        expect(seen.byStatus.get(400) ?? 0).toBeGreaterThan(100);
      },
    );

    it('answers an oversized body with 413 on every route that takes one, writing nothing', async () => {
      const big = `{"params":"${'x'.repeat(DEFAULT_SERVER_LIMITS.bodyLimitBytes + 10)}"}`;
      // A route that answers before its body is read (federate) never gets that far.
      for (const route of d.routes.filter((r) => r.method === 'POST' && !r.beforeBody)) {
        const before = await d.digest();
        const r = await d.app.inject({
          method: 'POST',
          url: concreteUrl(route),
          headers: { authorization: `Bearer ${d.tokens.alice}`, 'content-type': 'application/json' },
          payload: big,
        });
        expect(r.statusCode, route.url).toBe(413);
        await judge(r, before, `oversized ${route.url}`);
      }
    });

    it('every answer above conforms to the OpenAPI document', () => {
      expect(d.violations()).toEqual([]);
    });
  });
}

/** One raw HTTP/1.1 exchange; resolves with what came back (maybe nothing) when the socket closes or `waitMs` passes. */
function rawExchange(
  port: number,
  write: (s: Socket) => Promise<void>,
  waitMs: number,
): Promise<{ text: string; closed: boolean }> {
  return new Promise((resolve, reject) => {
    const s = connect(port, '127.0.0.1');
    let text = '';
    let closed = false;
    const timer = setTimeout(() => {
      s.destroy();
      resolve({ text, closed });
    }, waitMs);
    s.on('data', (b: Buffer) => (text += b.toString('latin1')));
    s.on('error', () => undefined);
    s.on('close', () => {
      closed = true;
      clearTimeout(timer);
      resolve({ text, closed });
    });
    s.on('connect', () => void write(s).catch(reject));
  });
}

const statusOf = (text: string) => Number(/^HTTP\/1\.1 (\d{3})/.exec(text)?.[1] ?? 0);

describe('hostile input over real sockets', () => {
  let d: FullDaemon;
  let port: number;
  const health = async () => (await request(`http://127.0.0.1:${port}/healthz`)).statusCode;

  beforeAll(async () => {
    d = await fullDaemon();
    await d.app.listen({ port: 0, host: '127.0.0.1' });
    port = (d.app.server.address() as AddressInfo).port;
  });
  afterAll(async () => {
    leakScan.check(d.logLines.join(''), 'daemon log of the socket suite');
    await d.close();
  });

  const head = (path: string, extra: string) =>
    `POST ${path} HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${d.tokens.bot}\r\nContent-Type: application/json\r\n${extra}\r\n`;

  it('an oversized body is 413 before it is all read, and nothing is written', async () => {
    const before = await d.digest();
    const r = await rawExchange(
      port,
      async (s) => {
        s.write(head('/v1/action', `Content-Length: ${DEFAULT_SERVER_LIMITS.bodyLimitBytes * 4}\r\n`));
        s.write(Buffer.alloc(64 * 1024, 0x20));
      },
      5_000,
    );
    expect(statusOf(r.text)).toBe(413);
    expect(await d.digest()).toBe(before);
  });

  it('a slow body does not stall the daemon, and never gets a 5xx', async () => {
    const before = await d.digest();
    const slow = rawExchange(
      port,
      async (s) => {
        s.write(head('/v1/action', 'Content-Length: 2000\r\n'));
        for (let i = 0; i < 5 && !s.destroyed; i++) {
          s.write('{');
          await new Promise((r) => setTimeout(r, 100));
        }
      },
      // However the daemon's request timeout is set, the test stops waiting here.
      1_500,
    );
    // Other clients are served while the trickle goes on.
    expect(await health()).toBe(200);
    const r = await slow;
    if (r.text !== '') expect(statusOf(r.text)).toBeLessThan(500);
    expect(await health()).toBe(200);
    expect(await d.digest()).toBe(before);
  });

  it('a lying Content-Length, broken chunking and invalid UTF-8 are refused without a 5xx', async () => {
    const before = await d.digest();
    const cases: [string, (s: Socket) => Promise<void>][] = [
      ['short body', async (s) => void s.end(`${head('/v1/action', 'Content-Length: 50\r\n')}{"a":1}`)],
      [
        'bad chunk',
        async (s) =>
          void s.write(`${head('/v1/action', 'Transfer-Encoding: chunked\r\n')}zz\r\n{}\r\n0\r\n\r\n`),
      ],
      [
        'both framings',
        async (s) =>
          void s.write(
            `${head('/v1/action', 'Content-Length: 2\r\nTransfer-Encoding: chunked\r\n')}2\r\n{}\r\n0\r\n\r\n`,
          ),
      ],
      [
        'invalid UTF-8',
        async (s) => {
          const body = Buffer.from([0x7b, 0x22, 0x61, 0x22, 0x3a, 0x22, 0xc0, 0xaf, 0x22, 0x7d]);
          s.write(head('/v1/action', `Content-Length: ${body.length}\r\n`));
          s.write(body);
        },
      ],
    ];
    for (const [name, write] of cases) {
      const r = await rawExchange(port, write, 1_000);
      const status = statusOf(r.text);
      if (status !== 0) expect(status, name).toBeLessThan(500);
      if (status !== 0) expect(status, name).toBeGreaterThanOrEqual(400);
    }
    expect(await health()).toBe(200);
    expect(await d.digest()).toBe(before);
  });

  it('a request the HTTP parser refuses gets the coded body and a request id, on the daemon and the console', async () => {
    const c = await consoleOf(d.f);
    await c.app.listen({ port: 0, host: '127.0.0.1' });
    const consolePort = (c.app.server.address() as AddressInfo).port;
    const get = (extra: string) => `GET /v1/capabilities HTTP/1.1\r\nHost: x\r\n${extra}\r\n`;
    const cases: [string, string, number, string][] = [
      ['headers over 16 KiB', get(`X-Big: ${'a'.repeat(20 * 1024)}\r\n`), 431, 'headers'],
      ['NUL in a header', get('X-Note: a\u0000b\r\n'), 400, 'headers'],
      ['a space in a header name', get('X Note: a\r\n'), 400, 'headers'],
      [
        'a Content-Length that is not a number',
        head('/v1/action', 'Content-Length: 1e3\r\n'),
        400,
        'content-length',
      ],
      [
        'two Content-Lengths',
        head('/v1/action', 'Content-Length: 2\r\nContent-Length: 3\r\n'),
        400,
        'content-length',
      ],
      ['a method HTTP does not know', 'G@T / HTTP/1.1\r\nHost: x\r\n\r\n', 400, 'request'],
      ['NUL in the request line', 'GET /v1/task/a\u0000 HTTP/1.1\r\nHost: x\r\n\r\n', 400, 'request'],
    ];
    try {
      for (const [listener, p] of [
        ['daemon', port],
        ['console', consolePort],
      ] as const) {
        for (const [name, text, status, field] of cases) {
          const r = await rawExchange(p, async (s) => void s.write(text), 5_000);
          const what = `${listener}: ${name}`;
          expect(statusOf(r.text), what).toBe(status);
          expect(r.closed, what).toBe(true);
          const [headText, body] = r.text.split('\r\n\r\n') as [string, string];
          expect(headText, what).toMatch(/\r\nx-request-id: [0-9a-f-]{36}\r\n/i);
          expect(headText, what).toMatch(/\r\ncontent-type: application\/json/i);
          const parsed = JSON.parse(body) as Record<string, unknown>;
          expect(
            Object.keys(parsed)
              .filter((k) => k !== 'remedy')
              .sort(),
            what,
          ).toEqual(['code', 'field', 'reason']);
          expect(parsed.field, what).toBe(field);
          expect(parsed.reason as string, what).toContain(field);
          expect(parsed.code, what).toBe(status === 431 ? 'headers_too_large' : 'bad_request');
        }
      }
      expect(await health()).toBe(200);
    } finally {
      await c.app.close();
    }
  });

  it('every answer that reached the app conforms to the OpenAPI document', () => {
    expect(d.violations()).toEqual([]);
  });
});
