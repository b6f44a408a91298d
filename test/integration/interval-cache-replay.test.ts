/**
 * The compare bench's fresh workload (the example policy, a different amount in every
 * request, the clock advancing) decided twice through the real pipeline on real SQLite
 * stores, once by the daemon's policy step (answers cached, keyed by interval) and once by
 * the engine alone, then replayed from the first run's records as `svc policy replay` does.
 * The interval key must change no decision; and it must serve most fresh amounts, or it
 * would not be worth its proof.
 */
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import type { Actor } from '../../src/core/actor.js';
import { admits } from '../../src/core/constraints.js';
import type { DecisionRules } from '../../src/core/decision/decide.js';
import { PolicyCache } from '../../src/daemon/policy-cache.js';
import { authorize, authorizeUncached } from '../../src/policy/authorization.js';
import { authorizationCacheStats } from '../../src/policy/authorization-cache.js';
import { EXAMPLE_POLICY } from '../../src/policy/example-policy.js';
import { requestOf } from '../../src/policy/policy-inputs.js';
import { compilePolicySet } from '../../src/policy/policy-set.js';
import { verbsOf } from '../../src/policy/verbs.js';
import { replayPolicy } from '../../src/provisioning/policy-replay.js';
import type { PolicyResolver, PolicySource, ResolvedPolicy, Sealed } from '../../src/store/decision-ports.js';
import { openRecordedDecisions } from '../../src/store/open.js';
import type { RecordedDecision } from '../../src/store/replay-ports.js';
import { SqliteStore } from '../../src/store/sqlite/store.js';
import { bot, request } from '../helpers/pg-seed.js';
import { capabilityRecord, taskRecord } from '../helpers/registry-records.js';
import { tmpDir } from '../helpers/tmp.js';

const T0 = '2026-06-01T00:00:00.000Z';
const DECISIONS = 400;
const LIMIT_USD = 1000;

/** A small deterministic generator: the same workload in both runs and in every test run. */
function random(seed: number): () => number {
  let s = seed >>> 0;
  return () => {
    s = (s + 0x6d2b79f5) >>> 0;
    let t = Math.imul(s ^ (s >>> 15), 1 | s);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 2 ** 32;
  };
}

/**
 * The fresh workload's amounts, in USD with micro-dollar precision, all different: most
 * under the example policy's 1000 USD limit, a few above it, one exactly on it.
 */
function freshAmounts(): number[] {
  const next = random(29);
  const seen = new Set<number>([LIMIT_USD]);
  const amounts: number[] = [];
  while (amounts.length < DECISIONS - 1) {
    const top = next() < 0.1 ? 5 * LIMIT_USD : LIMIT_USD;
    const micros = 1 + Math.floor(next() * (top * 1e6 - 1));
    if (seen.has(micros / 1e6)) continue;
    seen.add(micros / 1e6);
    amounts.push(micros / 1e6);
  }
  amounts.splice(DECISIONS >> 1, 0, LIMIT_USD);
  return amounts;
}

/** A clock that advances one to three seconds each time the store reads it. */
function advancingClock(): () => Date {
  const next = random(7);
  let at = Date.parse(T0);
  return () => new Date((at += 1000 + Math.floor(next() * 2000)));
}

/** The daemon's policy step with the cache left out: every request goes to the engine. */
class EngineOnly implements PolicyResolver {
  private readonly byTenant = new Map<string, { registryVersion: number; policy: ResolvedPolicy }>();

  cached(tenantId: string, registryVersion: number): ResolvedPolicy | undefined {
    const hit = this.byTenant.get(tenantId);
    return hit?.registryVersion === registryVersion ? hit.policy : undefined;
  }

  install(tenantId: string, registryVersion: number, source: PolicySource): ResolvedPolicy {
    const compiled =
      source.text === null ? null : compilePolicySet(source.text, verbsOf([{ actions: source.verbs }]));
    const evaluate: DecisionRules['policy'] = (q) => {
      const d = authorizeUncached(compiled, { ...q, tenantId });
      return {
        allow: d.decision === 'allow',
        noPolicy: d.basis === 'no_policy_set',
        ...(d.reason !== undefined ? { reason: d.reason } : {}),
        ...(d.remedy !== undefined ? { remedy: d.remedy } : {}),
        determining: d.determining,
      };
    };
    const policy = { evaluate, version: source.version };
    this.byTenant.set(tenantId, { registryVersion, policy });
    return policy;
  }
}

const agent: Actor = { ...bot, id: 'bench-agent' };
// The daemon's own run is read by both tests; it is decided once.
let cachedRun: Promise<{ file: string; sealed: Sealed[] }> | undefined;
const daemonRun = () => (cachedRun ??= run(new PolicyCache()));
const dirs: { cleanup(): void }[] = [];
afterAll(() => {
  for (const d of dirs) d.cleanup();
});

/** Provisions tenant acme with the example policy, then decides the workload; returns the database. */
async function run(policy: PolicyResolver): Promise<{ file: string; sealed: Sealed[] }> {
  const dir = tmpDir('svc-interval-replay-');
  dirs.push(dir);
  const file = join(dir.path, 'svc.db');
  const store = SqliteStore.open(file, { clock: advancingClock() });
  try {
    await store.tenants.create({
      tenant: { id: 'acme', createdAt: T0 },
      signingKey: {
        tenantId: 'acme',
        keyId: 'k1',
        publicKey: 'cHVibGlj',
        algorithm: 'ed25519',
        createdAt: T0,
      },
      admin: { ...bot, id: 'alice', kind: 'human', roles: ['administrator'], managerId: null },
    });
    await store.actors.add(agent);
    await store.capabilities.put(capabilityRecord('acme', 'bench.read', T0, { actions: ['write'] }));
    await store.permissions.grant({
      tenantId: 'acme',
      actorId: agent.id,
      capability: 'bench.read',
      grantedAt: T0,
    });
    await store.tasks.create(
      taskRecord('acme', 'bench', T0, { actors: [agent.id], budgetMicros: 10n ** 15n }),
    );
    await store.policies.set('acme', EXAMPLE_POLICY, T0);
    const rules = { policy, constraints: admits };
    const sealed: Sealed[] = [];
    const amounts = freshAmounts();
    for (let i = 0; i < amounts.length; i++) {
      const req = { ...request('bench.read', 'bench', `s${i}`, amounts[i]), actorId: agent.id };
      sealed.push(await store.decisions.decide(req, agent, 'new', rules));
    }
    return { file, sealed };
  } finally {
    await store.close();
  }
}

/** What a decision was, leaving out what differs between any two runs (ids, times, hashes). */
function verdict(s: Sealed) {
  if (s.kind !== 'sealed') return s;
  const step = s.policyStep;
  return {
    outcome: s.outcome,
    code: s.code,
    reason: s.reason,
    remedy: s.remedy,
    amountMicros: s.amountMicros,
    policy: step && { allow: step.allow, noPolicy: step.noPolicy, determining: step.determining },
  };
}

async function recordedOf(file: string): Promise<RecordedDecision[]> {
  const recorded = await openRecordedDecisions(file);
  try {
    const all: RecordedDecision[] = [];
    for await (const page of recorded.decisions('acme', {})) all.push(...page);
    return all;
  } finally {
    await recorded.close();
  }
}

describe('the fresh workload replayed with the interval cache on and off', () => {
  it('gives every decision the engine alone gives, and replays without a difference', async () => {
    const cached = await daemonRun();
    const engine = await run(new EngineOnly());
    expect(cached.sealed.map(verdict)).toEqual(engine.sealed.map(verdict));
    // The workload reaches both sides of the limit, and the limit itself.
    const outcomes = cached.sealed.map((s) => (s.kind === 'sealed' ? (s.code ?? s.outcome) : s.kind));
    const count = (o: string) => outcomes.filter((x) => x === o).length;
    expect(count('allowed')).toBeGreaterThan(DECISIONS / 2);
    expect(count('policy_denied')).toBeGreaterThan(0);
    expect(count('allowed') + count('policy_denied')).toBe(DECISIONS);

    // `svc policy replay` of the cached run's records: the engine, cached afresh, agrees.
    const recorded = await openRecordedDecisions(cached.file);
    try {
      const replay = await replayPolicy(recorded, {
        tenantId: 'acme',
        text: EXAMPLE_POLICY,
        source: 'example-policy',
        range: {},
      });
      expect(replay.counts).toMatchObject({ read: DECISIONS, replayed: DECISIONS, unreadable: 0 });
      expect(replay.report.byPair).toEqual([]);
    } finally {
      await recorded.close();
    }
  });

  it('answers nearly every fresh amount of the recorded run from the cache', async () => {
    const { file } = await daemonRun();
    const snapshots = new Map<number, unknown>();
    const recorded = await openRecordedDecisions(file);
    try {
      for (const [id, text] of await recorded.snapshots('acme')) snapshots.set(id, JSON.parse(text));
    } finally {
      await recorded.close();
    }
    const compiled = compilePolicySet(EXAMPLE_POLICY, ['write']);
    const amounts = new Set<bigint>();
    for (const d of await recordedOf(file)) {
      const i = d.inputs!;
      const r = requestOf('acme', {
        actor: snapshots.get(i.actor) as never,
        capability: snapshots.get(i.capability) as never,
        action: i.action,
        taskId: d.taskId,
        amountMicros: i.amountMicros.toString(),
        route: i.brokered ? 'brokered' : 'action',
        nowEpochS: i.nowEpochS,
        approvalTier: i.approvalTier,
      });
      amounts.add(r.amountMicros);
      expect(authorize(compiled, r)).toEqual(authorizeUncached(compiled, r));
    }
    expect(amounts.size).toBe(DECISIONS);
    const { hits, misses } = authorizationCacheStats(compiled);
    // Three intervals of the amount (under, on and over the limit) and one of the tier.
    expect(misses).toBe(3);
    expect(hits).toBe(DECISIONS - 3);
  });
});
