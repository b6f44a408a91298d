import type { FastifyInstance } from 'fastify';
import { afterEach, describe, expect, it } from 'vitest';
import { buildDaemon } from '../../src/daemon/app.js';
import { daemonDeps } from '../../src/daemon/wiring.js';
import { openStore } from '../../src/store/open.js';
import type { Store } from '../../src/store/ports.js';
import { admits } from '../../src/core/constraints.js';
import type { Sealed } from '../../src/core/decision/sealed.js';
import { PolicyCache } from '../../src/daemon/policy-cache.js';
import { PolicyShadow } from '../../src/daemon/policy-shadow.js';
import { nodeCrypto } from '../../src/evidence/node-crypto.js';
import { verifyExport } from '../../src/evidence/verify/index.js';
import {
  clearShadowPolicy,
  promoteShadow,
  setShadowPolicy,
  shadowReport,
} from '../../src/provisioning/policy-shadow.js';
import { Keyring } from '../../src/store/keyring.js';
import { fixture, type Fixture } from '../helpers/fixture.js';
import { exportText } from '../helpers/real-export.js';
import { capability, register } from '../helpers/registry.js';
import { decisionRequest } from '../helpers/decision-request.js';
import { freshDatabase, pgAvailable } from '../helpers/postgres.js';
import { until } from '../helpers/until.js';

const LIVE = `@id("refunds-up-to-500")
permit (principal, action, resource) when { context.amount_micros <= 500000000 };
`;
/** The candidate tightens the refund limit from 500 to 100 USD. */
const CANDIDATE = `${LIVE}
@id("refund-limit-100")
@reason("refunds above 100 USD need a person")
forbid (principal, action, resource) when { context.amount_micros > 100000000 };
`;

/** Amounts in USD: under, at and over the new limit, and over the old one. */
const AMOUNTS = [5, 20, 99.99, 100, 100.01, 150, 250, 499, 500, 500.01, 750, 42, 101, 300, 1];
const TIGHTENED = AMOUNTS.filter((a) => a > 100 && a <= 500).length;
const OVER_BOTH = AMOUNTS.filter((a) => a > 500).length;

let fixtures: Fixture<Store>[] = [];
afterEach(async () => {
  for (const f of fixtures) await f.close();
  fixtures = [];
});

async function refundTenant(postgres?: string): Promise<{ f: Fixture<Store>; bot: string }> {
  const f: Fixture<Store> = postgres === undefined ? await fixture() : await fixture({ postgres });
  fixtures.push(f);
  await register(f.store, 'acme', {
    caps: [
      capability('acme', 'refunds.issue', { actions: ['write', 'refund'] }),
      capability('acme', 'crm.read'),
    ],
    grants: [['bot', 'refunds.issue']],
    policy: LIVE,
    tasks: [{ id: 't1', sponsor: 'alice', budget: 1_000_000_000_000n, actors: ['bot'] }],
  });
  return { f, bot: await f.token('acme', 'bot') };
}

/** The same traffic each time: every refund in AMOUNTS, and one request refused before the policy. */
async function traffic(
  f: Fixture<Store>,
  bot: string,
  prefix: string,
  apps: FastifyInstance[] = [f.app],
): Promise<unknown[]> {
  let turn = 0;
  const send = (step: string, capabilityName: string, amount: number) =>
    apps[turn++ % apps.length]!.inject({
      method: 'POST',
      url: '/v1/action',
      headers: { authorization: `Bearer ${bot}` },
      payload: {
        tenant_id: 'acme',
        actor_id: 'bot',
        capability: capabilityName,
        action: capabilityName === 'crm.read' ? 'read' : 'write',
        task_id: 't1',
        effect_key_step: `${prefix}-${step}`,
        amount_usd: amount,
      },
    });
  // Concurrent, as live load is: the shadow queue fills while decisions are committed.
  const replies = await Promise.all([
    ...AMOUNTS.map((a, i) => send(`r${i}`, 'refunds.issue', a)),
    send('no-permission', 'crm.read', 1),
  ]);
  return replies.map((r) => ({ status: r.statusCode, body: comparable(r.json()) }));
}

/** A reply without what differs between two runs by construction: ids, hashes, sequences. */
function comparable(body: Record<string, unknown>): unknown {
  return JSON.parse(
    JSON.stringify(body, (k, v: unknown) =>
      ['intent_id', 'receipt_id', 'record_hash', 'leaf', 'grant_id', 'sequence', 'effect_key'].includes(k)
        ? '<id>'
        : v,
    ),
  );
}

const compared = (f: Fixture<Store>, n: number) =>
  until(`${n} decisions compared`, async () => {
    const r = await f.store.shadows.get('acme');
    return r !== undefined && r.compared + r.uncompiled >= n ? r : undefined;
  });

async function verifies(f: Fixture<Store>): Promise<void> {
  const text = await exportText(f.store, new Keyring(f.dir, f.store), 'acme', () => f.now.value);
  const keys = (await f.store.keys.list('acme')).map(
    (k) => new Uint8Array(Buffer.from(k.publicKey, 'base64')),
  );
  const r = await verifyExport([text], { publicKeys: keys }, nodeCrypto);
  expect(r.findings).toEqual([]);
}

describe('shadow policy on live traffic', () => {
  it('counts exactly the requests above the new limit as allowed->refused, and changes no outcome or receipt', async () => {
    const shadowed = await refundTenant();
    const plain = await refundTenant();
    const set = await setShadowPolicy(shadowed.f.store, {
      tenantId: 'acme',
      text: CANDIDATE,
      source: 'candidate.cedar',
      now: shadowed.f.now.value,
    });

    const withShadow = await traffic(shadowed.f, shadowed.bot, 'a');
    const without = await traffic(plain.f, plain.bot, 'a');
    expect(withShadow).toEqual(without);
    // Every refund reached the policy; the request without permission did not.
    const tally = await compared(shadowed.f, AMOUNTS.length);
    expect(tally).toMatchObject({ candidateId: set.candidate_id, compared: AMOUNTS.length, dropped: 0 });

    const { status, report } = await shadowReport(shadowed.f.store, 'acme');
    expect(status).toMatchObject({
      dropped: 0,
      uncompiled: 0,
      unreadable: 0,
      failure: null,
      validates_now: true,
    });
    expect(report.evaluated).toBe(AMOUNTS.length);
    const pairs = Object.fromEntries(report.byPair.map((p) => [p.pair, p.count]));
    // Over both limits: refused either way, only the deciding policies move.
    expect(pairs).toEqual({ 'allowed->refused': TIGHTENED, 'refused->refused': OVER_BOTH });
    expect(report.differing).toBe(TIGHTENED + OVER_BOTH);
    const tightened = report.byPair.find((p) => p.pair === 'allowed->refused')!;
    for (const e of tightened.examples) {
      expect(BigInt(e.inputs.amountMicros)).toBeGreaterThan(100_000_000n);
      expect(e.current).toEqual({ outcome: 'allowed', determining: ['refunds-up-to-500'] });
      expect(e.candidate).toEqual({
        outcome: 'refused',
        code: 'policy_denied',
        determining: ['refund-limit-100'],
      });
      expect(e.intentId).toMatch(/^int_/);
    }
    expect(report.byCapability).toEqual([{ key: 'refunds.issue', count: TIGHTENED + OVER_BOTH }]);
    expect(report.byActor).toEqual([{ key: 'bot', count: TIGHTENED + OVER_BOTH }]);

    // The receipts the journal holds are the same too, and the journal verifies.
    const receipts = async (f: Fixture<Store>) => {
      const r = await f.app.inject({
        method: 'GET',
        url: '/v1/receipts?limit=100',
        headers: { authorization: `Bearer ${f.adminToken}` },
      });
      expect(r.statusCode).toBe(200);
      const items = (r.json() as { items: Record<string, unknown>[] }).items;
      expect(items).toHaveLength(AMOUNTS.length + 1);
      // Concurrent requests may be journaled in another order from one run to the next.
      return items.map((i) => JSON.stringify(comparable(i))).sort();
    };
    expect(await receipts(shadowed.f)).toEqual(await receipts(plain.f));
    await verifies(shadowed.f);
  });

  it('reports a candidate that no longer compiles against the registrations, and never breaks a decision', async () => {
    const shadowed = await refundTenant();
    const plain = await refundTenant();
    // Names a verb the tenant registers now and drops below.
    const candidate = `${CANDIDATE}\n@id("no-refund-verb")\nforbid (principal, action == Action::"refund", resource);\n`;
    await setShadowPolicy(shadowed.f.store, {
      tenantId: 'acme',
      text: candidate,
      source: 'candidate.cedar',
      now: shadowed.f.now.value,
    });
    for (const { f } of [shadowed, plain])
      await f.store.capabilities.put(capability('acme', 'refunds.issue', { actions: ['write'] }));

    expect(await traffic(shadowed.f, shadowed.bot, 'b')).toEqual(await traffic(plain.f, plain.bot, 'b'));
    const tally = await compared(shadowed.f, AMOUNTS.length);
    expect(tally).toMatchObject({ compared: 0, uncompiled: AMOUNTS.length });
    expect(tally.failure).toMatch(/refund/);
    const { status, report } = await shadowReport(shadowed.f.store, 'acme');
    expect(status.validates_now).toBe(false);
    expect(status.failure?.registry_version).toBeGreaterThan(0);
    expect(report.differing).toBe(0);
    await verifies(shadowed.f);

    // Registrations back as they were: it compiles again, the failure is lifted and decisions are compared.
    await shadowed.f.store.capabilities.put(
      capability('acme', 'refunds.issue', { actions: ['write', 'refund'] }),
    );
    await traffic(shadowed.f, shadowed.bot, 'c');
    const after = await until('compared again', async () => {
      const r = await shadowed.f.store.shadows.get('acme');
      return r && r.compared >= AMOUNTS.length ? r : undefined;
    });
    expect(after).toMatchObject({ compared: AMOUNTS.length, uncompiled: AMOUNTS.length, failure: null });
  });

  it('starts a new report with a new candidate; promote installs it through policy set; clear forgets it', async () => {
    const { f, bot } = await refundTenant();
    await setShadowPolicy(f.store, {
      tenantId: 'acme',
      text: CANDIDATE,
      source: 'c1.cedar',
      now: f.now.value,
    });
    await traffic(f, bot, 'd');
    await compared(f, AMOUNTS.length);
    expect((await shadowReport(f.store, 'acme')).report.differing).toBe(TIGHTENED + OVER_BOTH);

    const second = await setShadowPolicy(f.store, {
      tenantId: 'acme',
      text: `${LIVE}\n// the same policy, commented\n`,
      source: 'c2.cedar',
      now: f.now.value,
    });
    const fresh = await shadowReport(f.store, 'acme');
    expect(fresh.status.candidate_id).toBe(second.candidate_id);
    expect(fresh.report).toMatchObject({ evaluated: 0, differing: 0 });

    await setShadowPolicy(f.store, {
      tenantId: 'acme',
      text: CANDIDATE,
      source: 'c3.cedar',
      now: f.now.value,
    });
    const before = await f.store.policies.get('acme');
    const promoted = await promoteShadow(f.store, { tenantId: 'acme', now: f.now.value });
    expect(promoted).toMatchObject({ changed: true, version: before!.version + 1 });
    expect((await f.store.policies.get('acme'))!.text).toBe(CANDIDATE);
    expect(await f.store.shadows.get('acme')).toBeUndefined();
    // The promoted policy decides: 150 USD is refused now.
    const r = await f.app.inject({
      method: 'POST',
      url: '/v1/action',
      headers: { authorization: `Bearer ${bot}` },
      payload: {
        tenant_id: 'acme',
        actor_id: 'bot',
        capability: 'refunds.issue',
        action: 'write',
        task_id: 't1',
        effect_key_step: 'after-promote',
        amount_usd: 150,
      },
    });
    expect(r.json()).toMatchObject({ decision: 'refused', code: 'policy_denied' });

    expect(await clearShadowPolicy(f.store, 'acme')).toEqual({ tenant_id: 'acme', cleared: false });
    await setShadowPolicy(f.store, { tenantId: 'acme', text: LIVE, source: 'c4.cedar', now: f.now.value });
    expect(await clearShadowPolicy(f.store, 'acme')).toEqual({ tenant_id: 'acme', cleared: true });
    await expect(shadowReport(f.store, 'acme')).rejects.toMatchObject({ code: 'not_found' });
  });

  it('refuses a candidate that does not validate against the registrations, naming the file and the line', async () => {
    const { f } = await refundTenant();
    await expect(
      setShadowPolicy(f.store, {
        tenantId: 'acme',
        text: 'permit (principal, action == Action::"launch", resource);\n',
        source: 'bad.cedar',
        now: f.now.value,
      }),
    ).rejects.toMatchObject({
      code: 'policy_invalid',
      field: 'file',
      reason: expect.stringMatching(/bad\.cedar:1:/),
    });
    expect(await f.store.shadows.get('acme')).toBeUndefined();
  });

  it('never waits for a full queue: what does not fit is counted as dropped, and the rest compared', async () => {
    const { f } = await refundTenant();
    await setShadowPolicy(f.store, {
      tenantId: 'acme',
      text: CANDIDATE,
      source: 'c.cedar',
      now: f.now.value,
    });
    const bot = (await f.store.actors.get('acme', 'bot'))!;
    const rules = { policy: new PolicyCache(), constraints: admits };
    const sealed: Sealed[] = [];
    for (const [i, amountUsd] of AMOUNTS.entries()) {
      const req = decisionRequest({ capability: 'refunds.issue', step: `q${i}`, amountUsd });
      sealed.push(await f.store.decisions.decide(req, bot, 'new', rules));
    }
    const shadow = new PolicyShadow(f.store, { capacity: 4, batch: 2 });
    // All handed over in one turn, as a burst of replies would: the queue holds 4 of them.
    for (const s of sealed) shadow.observe('acme', s);
    await shadow.idle();
    expect(await f.store.shadows.get('acme')).toMatchObject({ compared: 4, dropped: AMOUNTS.length - 4 });
    const { report } = await shadowReport(f.store, 'acme');
    const firstFour = AMOUNTS.slice(0, 4);
    expect(report.differing).toBe(firstFour.filter((a) => a > 100).length);
  });
});

const server = await pgAvailable();

describe.skipIf('skip' in server)('shadow policy on PostgreSQL replicas', () => {
  it('each replica compares the decisions it makes and records them into the shared store', async () => {
    const db = await freshDatabase();
    try {
      const { f, bot } = await refundTenant(db.url);
      const replicaStore = await openStore(db.url, {
        clock: () => f.now.value,
        applicationName: 'svc replica',
      });
      const replica = buildDaemon(
        daemonDeps(f.dir, replicaStore, { authMode: 'token', clock: () => f.now.value }),
        {
          logger: false,
        },
      );
      await replica.ready();
      try {
        await setShadowPolicy(f.store, {
          tenantId: 'acme',
          text: CANDIDATE,
          source: 'c.cedar',
          now: f.now.value,
        });
        await traffic(f, bot, 'p', [f.app, replica]);
        await compared(f, AMOUNTS.length);
        await replica.close();
        await f.app.close();
        const { report } = await shadowReport(f.store, 'acme');
        expect(report.evaluated).toBe(AMOUNTS.length);
        expect(Object.fromEntries(report.byPair.map((p) => [p.pair, p.count]))).toEqual({
          'allowed->refused': TIGHTENED,
          'refused->refused': OVER_BOTH,
        });
        await verifies(f);
      } finally {
        await replica.close();
        await replicaStore.close();
        await f.close();
        fixtures = fixtures.filter((x) => x !== f);
      }
    } finally {
      await db.drop();
    }
  });
});
