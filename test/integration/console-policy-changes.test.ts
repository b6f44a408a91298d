import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { differenceJson, replayJson } from '../../src/api/policy-difference-view.js';
import { Validator } from '@seriousme/openapi-schema-validator';
import { buildConsole, consoleRoutes } from '../../src/console/app.js';
import type { ConsoleDeps } from '../../src/console/deps.js';
import { consoleOpenApi } from '../../src/console/openapi.js';
import { consoleDeps } from '../../src/console/server.js';
import type { ReplayBounds } from '../../src/provisioning/policy-replay.js';
import { replayPolicy } from '../../src/provisioning/policy-replay.js';
import { setShadowPolicy, shadowReport } from '../../src/provisioning/policy-shadow.js';
import { openRecordedDecisions } from '../../src/store/open.js';
import type { Store } from '../../src/store/ports.js';
import { call, consoleClient, type ConsoleClient, type Session } from '../helpers/console.js';
import { fixture, type Fixture } from '../helpers/fixture.js';
import { freshDatabase, pgAvailable } from '../helpers/postgres.js';
import { watchConformance } from '../helpers/openapi-conformance.js';
import { capability, register } from '../helpers/registry.js';
import { until } from '../helpers/until.js';

const LIVE = `@id("refunds-up-to-500")
permit (principal, action, resource) when { context.amount_micros <= 500000000 };
`;
/** Tightens the refund limit from 500 to 100 USD. */
const CANDIDATE = `${LIVE}
@id("refund-limit-100")
forbid (principal, action, resource) when { context.amount_micros > 100000000 };
`;
const AMOUNTS = [5, 99.99, 100, 100.01, 250, 499, 500, 750];
const TIGHTENED = AMOUNTS.filter((a) => a > 100 && a <= 500).length;
/** Over 500 USD both refuse, but by a different policy: a difference too (refused->refused). */
const OVER_BOTH = AMOUNTS.filter((a) => a > 500).length;
const pairs = (body: { by_pair: { pair: string; count: number }[] }) =>
  Object.fromEntries(body.by_pair.map((p) => [p.pair, p.count]));
const at = '2026-02-01T09:00:00.000Z';

/** The refund capability, granted to the agent bot, under LIVE, with a task. */
async function refundTenant(fx: Fixture<Store>): Promise<void> {
  await register(fx.store, 'acme', {
    caps: [capability('acme', 'refunds.issue', { actions: ['refund'] })],
    grants: [['bot', 'refunds.issue']],
    policy: LIVE,
    tasks: [{ id: 't1', sponsor: 'alice', budget: 1_000_000_000_000n, actors: ['bot'] }],
  });
}

/** A clock that moves 1 ms each time it is read. */
function ticking(): () => number {
  let t = 0;
  return () => t++;
}

/** The page sizes the recorded decisions come in when pages of `size` are asked for. */
async function pageSizes(spec: string, size: number): Promise<number[]> {
  const recorded = await openRecordedDecisions(spec);
  try {
    const sizes: number[] = [];
    for await (const page of recorded.decisions('acme', {}, size)) sizes.push(page.length);
    return sizes;
  } finally {
    await recorded.close();
  }
}

/** Every amount refunded once through the daemon, in order. */
async function refunds(fx: Fixture<Store>): Promise<void> {
  const bot = await fx.token('acme', 'bot');
  for (const [i, amount] of AMOUNTS.entries()) {
    const r = await fx.app.inject({
      method: 'POST',
      url: '/v1/action',
      headers: { authorization: `Bearer ${bot}` },
      payload: {
        tenant_id: 'acme',
        actor_id: 'bot',
        capability: 'refunds.issue',
        action: 'refund',
        task_id: 't1',
        effect_key_step: `r${i}`,
        amount_usd: amount,
      },
    });
    // over 500 USD the policy in force refuses: a decision all the same
    expect(r.json().decision, r.body).toBe(amount > 500 ? 'refused' : 'allowed');
  }
}

/**
 * The Policies page's shadow report and replay (app.inject, real SQLite): decisions made
 * through the real daemon app with a shadow set, then read back by the console.
 */
describe('console shadow report and replay', () => {
  let f: Fixture<Store>;
  let c: ConsoleClient;
  const sessions: Record<string, Session> = {};

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
        createdAt: at,
      });
    }
    await refundTenant(f);
    c = await consoleWith({});
    sessions.alice = await c.signIn(f.adminToken);
    for (const id of ['audrey', 'opal', 'bob']) sessions[id] = await c.signIn(await f.token('acme', id));
  });
  afterEach(async () => {
    await c.app.close();
    await f.close();
    expect(violations.splice(0)).toEqual([]);
  });

  /** Every response of every console a test starts, checked against the console's OpenAPI document. */
  const violations: string[] = [];
  const watches: (() => string[])[] = [];
  afterEach(() => {
    for (const w of watches.splice(0)) violations.push(...w());
  });

  /** A console over the fixture's store, with its dependencies changed as given. */
  async function consoleWith(change: Partial<ConsoleDeps>): Promise<ConsoleClient> {
    const deps = {
      ...consoleDeps(f.dir, f.store, { secure: true, authMode: 'token', clock: () => f.now.value }),
      ...change,
    };
    const app = buildConsole(deps, { logger: false });
    const doc = consoleOpenApi(consoleRoutes(deps), '0', deps.sessions.cookieName);
    watches.push(watchConformance(app, doc).violations);
    await app.ready();
    return consoleClient(app);
  }

  const traffic = () => refunds(f);
  const replay = (who: string | undefined, body: unknown, o: { csrf?: string | null } = {}) =>
    call(c, who === undefined ? undefined : sessions[who], '/api/policies/replay', {
      method: 'POST',
      body,
      ...o,
    });

  /** What `svc policy replay --json` says of the same candidate, read the same way. */
  async function cliReplay(text: string) {
    const recorded = await openRecordedDecisions(f.dir.database);
    try {
      return replayJson(
        'acme',
        'candidate',
        await replayPolicy(recorded, { tenantId: 'acme', text, source: 'candidate', range: {} }),
      );
    } finally {
      await recorded.close();
    }
  }

  it('shows the shadow report, as svc policy shadow report --json does, to administrators, operators and auditors only', async () => {
    for (const who of ['alice', 'opal', 'audrey']) {
      const none = await call(c, sessions[who], '/api/policies/shadow');
      expect(none.status, who).toBe(200);
      expect(none.body).toEqual({ shadow: null });
    }
    await setShadowPolicy(f.store, {
      tenantId: 'acme',
      text: CANDIDATE,
      source: 'tight.cedar',
      now: f.now.value,
    });
    await traffic();
    await until('every decision compared', async () => {
      const r = await f.store.shadows.get('acme');
      return r !== undefined && r.compared >= AMOUNTS.length ? r : undefined;
    });
    const { status, report } = await shadowReport(f.store, 'acme');
    const expected = { ...status, ...differenceJson(report) };
    expect(expected.evaluated).toBe(AMOUNTS.length);
    expect(expected.differing).toBe(TIGHTENED + OVER_BOTH);
    for (const who of ['alice', 'opal', 'audrey']) {
      const r = await call(c, sessions[who], '/api/policies/shadow');
      expect(r.status, who).toBe(200);
      expect(r.body.shadow).toEqual(expected);
      expect(r.body.shadow.source).toBe('tight.cedar');
      expect(pairs(r.body.shadow)).toEqual({ 'allowed->refused': TIGHTENED, 'refused->refused': OVER_BOTH });
    }
    expect((await call(c, sessions.bob, '/api/policies/shadow')).status).toBe(403);
    expect((await call(c, undefined, '/api/policies/shadow')).status).toBe(401);
  });

  it('replays a pasted candidate for an administrator: the summary of svc policy replay --json, whole', async () => {
    await traffic();
    const r = await replay('alice', { candidate: CANDIDATE });
    expect(r.status, JSON.stringify(r.body)).toBe(200);
    expect(r.body).toEqual({
      ...(await cliReplay(CANDIDATE)),
      partial: false,
      stopped_by: null,
      bounds: { decisions: 200_000, busy_ms: 2_000 },
    });
    expect(r.body.replayed).toBe(AMOUNTS.length);
    expect(pairs(r.body)).toEqual({ 'allowed->refused': TIGHTENED, 'refused->refused': OVER_BOTH });

    // A range: the journal sequences of the first three replayed decisions only.
    const first = r.body.first_seq as number;
    const ranged = await replay('alice', { candidate: CANDIDATE, from: first, to: first + 2 });
    expect(ranged.status).toBe(200);
    expect(ranged.body.read).toBe(3);
    expect(ranged.body.partial).toBe(false);
  });

  it('refuses the replay to operators, auditors and approvers, and without the CSRF token', async () => {
    await traffic();
    for (const who of ['opal', 'audrey', 'bob']) {
      const r = await replay(who, { candidate: CANDIDATE });
      expect(r.status, who).toBe(403);
      expect(r.body.code).toBe('forbidden');
    }
    const noCsrf = await replay('alice', { candidate: CANDIDATE }, { csrf: null });
    expect(noCsrf.status).toBe(403);
    expect(noCsrf.body.code).toBe('csrf_failed');
    const wrongCsrf = await replay('alice', { candidate: CANDIDATE }, { csrf: sessions.opal!.csrf });
    expect(wrongCsrf.status).toBe(403);
    expect(wrongCsrf.body.code).toBe('csrf_failed');
    expect((await replay(undefined, { candidate: CANDIDATE })).status).toBe(401);
  });

  it('refuses an oversized candidate, one that does not validate, and a bad range, naming the field', async () => {
    await traffic();
    // Over 64 KiB counted in characters, and under it in characters but over it in UTF-8 bytes.
    for (const candidate of [`// ${'x'.repeat(64 * 1024)}\n${LIVE}`, `// ${'€'.repeat(30_000)}\n${LIVE}`]) {
      const r = await replay('alice', { candidate });
      expect(r.status).toBe(400);
      expect(r.body.field).toBe('candidate');
      expect(r.body.reason).toMatch(/64 KiB|65536/);
    }
    const invalid = await replay('alice', {
      candidate: `${LIVE}permit (principal, action == Action::"launch", resource);\n`,
    });
    expect(invalid.status).toBe(400);
    expect(invalid.body.code).toBe('invalid_request');
    expect(invalid.body.field).toBe('candidate');
    expect(invalid.body.reason).toMatch(/candidate:3:\d+/);
    const both = await replay('alice', { candidate: CANDIDATE, since: '7d', from: 1 });
    expect(both.status).toBe(400);
    expect(both.body.field).toBe('since');
    const badSince = await replay('alice', { candidate: CANDIDATE, since: 'a week' });
    expect(badSince.status).toBe(400);
    expect(badSince.body.field).toBe('since');
    const extra = await replay('alice', { candidate: CANDIDATE, store: '/etc/passwd' });
    expect(extra.status).toBe(400);
  });

  /** A console over the same store whose replays are bounded as given. */
  async function bounded(b: Partial<ReplayBounds>) {
    const client = await consoleWith({ replayBounds: b });
    return { client, session: await client.signIn(f.adminToken) };
  }

  it('says when a bound stopped the replay, and reports only what it read', async () => {
    await traffic();
    // A replay inside the console reads a slice at a time: each read blocks its event loop.
    expect(await pageSizes(f.dir.database, 3)).toEqual([3, 3, 2]);
    const runs: { bounds: Partial<ReplayBounds>; read: number; stopped: string | null }[] = [
      { bounds: { maxRead: 3, slice: 2 }, read: 3, stopped: 'decisions' },
      // exactly the range: nothing was left unread, so the report is whole
      { bounds: { maxRead: AMOUNTS.length, slice: 3 }, read: AMOUNTS.length, stopped: null },
      { bounds: { maxBusyMs: 0 }, read: 0, stopped: 'time' },
      // A clock that moves 1 ms each time it is read: reading a page costs 1 ms, as evaluating
      // a slice does, so the reads count towards the bound too.
      { bounds: { now: ticking(), slice: 2, maxBusyMs: 2 }, read: 2, stopped: 'time' },
    ];
    for (const run of runs) {
      const { client, session } = await bounded(run.bounds);
      try {
        const r = await call(client, session, '/api/policies/replay', {
          method: 'POST',
          body: { candidate: CANDIDATE },
        });
        expect(r.status, JSON.stringify(r.body)).toBe(200);
        expect(r.body.read).toBe(run.read);
        expect(r.body.replayed).toBe(run.read);
        expect(r.body.evaluated).toBe(run.read);
        expect(r.body.partial).toBe(run.stopped !== null);
        expect(r.body.stopped_by).toBe(run.stopped);
      } finally {
        await client.app.close();
      }
    }
  });

  it('runs one replay at a time: another asked for meanwhile is refused, and the next one runs', async () => {
    await traffic();
    let opened!: () => void;
    const opening = new Promise<void>((r) => (opened = r));
    let release!: () => void;
    const held = new Promise<void>((r) => (release = r));
    // The real read-only opening, held until the second request has been answered.
    const slow = await consoleWith({
      recorded: async () => {
        opened();
        await held;
        return openRecordedDecisions(f.dir.database);
      },
    });
    const s = await slow.signIn(f.adminToken);
    const post = () =>
      call(slow, s, '/api/policies/replay', { method: 'POST', body: { candidate: CANDIDATE } });
    try {
      const first = post();
      await opening;
      const second = await post();
      expect(second.status).toBe(409);
      expect(second.body.code).toBe('conflict');
      release();
      expect((await first).status).toBe(200);
      expect((await post()).status).toBe(200);
    } finally {
      release();
      await slow.app.close();
    }
  });

  it('lists both routes in a valid OpenAPI document, the replay behind the CSRF token', async () => {
    const doc = (await call(c, undefined, '/api/openapi.json')).body;
    const result = await new Validator().validate(doc);
    expect(result.errors ?? []).toEqual([]);
    expect(doc.paths['/api/policies/shadow'].get.security).toEqual([{ consoleSession: [] }]);
    expect(doc.paths['/api/policies/replay'].post.security).toEqual([{ consoleSession: [], csrfToken: [] }]);
    const body = doc.paths['/api/policies/replay'].post.requestBody.content['application/json'].schema;
    expect(body.properties.candidate.maxLength).toBe(64 * 1024);
    expect(Object.keys(doc.components.schemas)).toEqual(
      expect.arrayContaining(['ConsoleShadowReport', 'ConsoleReplayReport']),
    );
  });
});

const server = await pgAvailable();

describe.skipIf('skip' in server)('console replay on PostgreSQL', () => {
  it('reads through a read-only connection of its own, a small page at a time, and stops at a bound', async () => {
    const db = await freshDatabase();
    const pf = await fixture({ postgres: db.url });
    const apps: ConsoleClient[] = [];
    try {
      await refundTenant(pf);
      await refunds(pf);
      const run = async (bounds: Partial<ReplayBounds>) => {
        const deps = consoleDeps(pf.dir, pf.store, {
          secure: true,
          authMode: 'token',
          clock: () => pf.now.value,
        });
        const app = buildConsole({ ...deps, replayBounds: bounds }, { logger: false });
        await app.ready();
        const client = consoleClient(app);
        apps.push(client);
        const session = await client.signIn(pf.adminToken);
        return call(client, session, '/api/policies/replay', {
          method: 'POST',
          body: { candidate: CANDIDATE },
        });
      };
      const recorded = await openRecordedDecisions(db.url);
      let cli;
      try {
        cli = replayJson(
          'acme',
          'candidate',
          await replayPolicy(recorded, { tenantId: 'acme', text: CANDIDATE, source: 'candidate', range: {} }),
        );
      } finally {
        await recorded.close();
      }
      expect(await pageSizes(db.url, 3)).toEqual([3, 3, 2]);
      const whole = await run({ slice: 3 });
      expect(whole.status, JSON.stringify(whole.body)).toBe(200);
      expect(whole.body).toEqual({
        ...cli,
        partial: false,
        stopped_by: null,
        bounds: { decisions: 200_000, busy_ms: 2_000 },
      });
      expect(whole.body.read).toBe(AMOUNTS.length);
      const cut = await run({ slice: 2, maxRead: 5 });
      expect(cut.body).toMatchObject({ read: 5, replayed: 5, partial: true, stopped_by: 'decisions' });
    } finally {
      for (const a of apps) await a.app.close();
      await pf.close();
      await db.drop();
    }
  });
});
