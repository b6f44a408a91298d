/**
 * Replay (issue 27): 50,000 decisions recorded under policy v1 through the real decision
 * path and the real SQLite store, the actors' roles changed afterwards, then a replay of v2
 * read from the data dir's database opened read-only. The report must use the roles as they
 * were, and must match a shadow run of v2 over the same traffic line for line.
 */
import Database from 'better-sqlite3';
import { afterEach, describe, expect, it } from 'vitest';
import type { Actor } from '../../src/core/actor.js';
import { admits } from '../../src/core/constraints.js';
import type { Sealed } from '../../src/core/decision/sealed.js';
import { differenceJson } from '../../src/api/policy-difference-view.js';
import { PolicyCache } from '../../src/daemon/policy-cache.js';
import { PolicyShadow } from '../../src/daemon/policy-shadow.js';
import { avoidJsToWasmInliningCrash } from '../../src/daemon/v8-workaround.js';
import { addActor } from '../../src/provisioning/actor.js';
import { replayPolicy } from '../../src/provisioning/policy-replay.js';
import { setShadowPolicy, shadowReport } from '../../src/provisioning/policy-shadow.js';
import { openRecordedDecisions } from '../../src/store/open.js';
import type { Store } from '../../src/store/ports.js';
import { decisionRequest } from '../helpers/decision-request.js';
import { fixture, type Fixture } from '../helpers/fixture.js';
import { capability, register } from '../helpers/registry.js';

/** v1: refunds up to 500 USD, by approvers only. */
const V1 = `@id("approvers-refund-to-500")
permit (principal, action, resource)
  when { principal.roles.contains("approver") && context.amount_micros <= 500000000 };
`;
/** v2 tightens the limit to 100 USD: the only change. */
const V2 = `${V1}
@id("refund-limit-100")
forbid (principal, action, resource) when { context.amount_micros > 100000000 };
`;
const DECISIONS = 50_000;
const ACTORS = 10;
const AMOUNTS = [5, 20, 99.99, 100, 100.01, 150, 250, 499, 500, 500.01, 750, 42, 101, 300, 1];

// 50,000 decisions, a shadow and three replays keep the policy engine as hot as a daemon's.
avoidJsToWasmInliningCrash();

let f: Fixture<Store> | undefined;
afterEach(async () => {
  await f?.close();
  f = undefined;
});

/** The traffic, in order: who (index), how much. Approvers at the time are the even ones. */
const traffic = Array.from({ length: DECISIONS }, (_, i) => ({
  actor: i % ACTORS,
  usd: AMOUNTS[Math.floor(i / ACTORS) % AMOUNTS.length]!,
}));
const approverThen = (a: number) => a % 2 === 0;

describe('policy replay', () => {
  it('50,000 decisions under v1, roles changed afterwards: replaying v2 flips only what the policy change flips, with the roles as they were, and matches a shadow run of v2', async () => {
    f = await fixture();
    const actors: Actor[] = [];
    for (let a = 0; a < ACTORS; a++) {
      actors.push(
        await addActor(
          f.store,
          { tenantId: 'acme', id: `clerk-${a}`, kind: 'human', roles: approverThen(a) ? ['approver'] : [] },
          f.now.value,
        ),
      );
    }
    await register(f.store, 'acme', {
      caps: [capability('acme', 'refunds.issue', { actions: ['refund'] })],
      grants: actors.map((a) => [a.id, 'refunds.issue'] as [string, string]),
      policy: V1,
      tasks: [{ id: 't1', sponsor: 'alice', budget: 10n ** 15n, actors: actors.map((a) => a.id) }],
    });
    // The shadow of v2 watches the same traffic live (p4's PolicyShadow, as the daemon runs it).
    await setShadowPolicy(f.store, { tenantId: 'acme', text: V2, source: 'v2.cedar', now: f.now.value });
    const shadow = new PolicyShadow(f.store, { capacity: DECISIONS });

    const rules = { policy: new PolicyCache(), constraints: admits };
    const CHUNK = 1000;
    for (let start = 0; start < DECISIONS; start += CHUNK) {
      const sealed: Sealed[] = await Promise.all(
        traffic.slice(start, start + CHUNK).map((t, k) =>
          f!.store.decisions.decide(
            decisionRequest({
              actorId: actors[t.actor]!.id,
              capability: 'refunds.issue',
              action: 'refund',
              step: `r${start + k}`,
              amountUsd: t.usd,
            }),
            actors[t.actor]!,
            'new',
            rules,
          ),
        ),
      );
      for (const s of sealed) shadow.observe('acme', s);
    }
    await shadow.idle();

    // Roles change afterwards: every approver loses the role, every other actor gains it.
    const db = new Database(f.dir.database);
    try {
      const swap = db.prepare('UPDATE actors SET roles = ? WHERE tenant_id = ? AND id = ?');
      for (let a = 0; a < ACTORS; a++)
        swap.run(JSON.stringify(approverThen(a) ? [] : ['approver']), 'acme', `clerk-${a}`);
    } finally {
      db.close();
    }
    expect((await f.store.actors.get('acme', 'clerk-1'))?.roles).toEqual(['approver']);

    const replay = async (text: string, examplesPer?: number) => {
      const recorded = await openRecordedDecisions(f!.dir.database);
      try {
        return await replayPolicy(recorded, {
          tenantId: 'acme',
          text,
          source: 'candidate.cedar',
          range: {},
          ...(examplesPer !== undefined ? { examplesPer } : {}),
        });
      } finally {
        await recorded.close();
      }
    };

    // v1 against itself: the recorded verdicts come back exactly, so nothing read the new roles.
    const same = await replay(V1);
    expect(same.counts).toEqual({
      read: DECISIONS,
      replayed: DECISIONS,
      unrecorded: 0,
      beforePolicy: 0,
      unreadable: 0,
    });
    expect(same.report.differing).toBe(0);

    const v2 = await replay(V2);
    expect(v2.versions).toEqual([1]);
    expect(v2.counts.replayed).toBe(DECISIONS);
    // Flipped: exactly the refunds above 100 and up to 500 USD of those who were approvers then.
    // Refusals above 100 USD stay refused, now by the new forbid (their determining policy moves).
    const flips = traffic.filter((t) => approverThen(t.actor) && t.usd > 100 && t.usd <= 500);
    const reasoned = traffic.filter((t) => t.usd > 100 && !(approverThen(t.actor) && t.usd <= 500));
    expect(v2.report.byPair.map((p) => [p.pair, p.count])).toEqual([
      ['refused->refused', reasoned.length],
      ['allowed->refused', flips.length],
    ]);
    expect(v2.report.differing).toBe(flips.length + reasoned.length);
    // Every flip, one by one: an approver then (not now), a refund above 100 and up to 500 USD,
    // allowed by v1's permit and refused by v2's new forbid. Had the replay read today's roles,
    // the former non-approvers' refunds would turn up here and the approvers' would not.
    const all = await replay(V2, DECISIONS);
    const allowedToRefused = all.report.byPair.find((p) => p.pair === 'allowed->refused')!.examples;
    expect(allowedToRefused).toHaveLength(flips.length);
    const evenIds = new Set(actors.filter((_, a) => approverThen(a)).map((a) => a.id));
    for (const ex of allowedToRefused) {
      expect(evenIds.has(ex.inputs.actor.id)).toBe(true);
      expect(ex.inputs.actor.roles).toEqual(['approver']);
      const micros = BigInt(ex.inputs.amountMicros);
      expect(micros > 100_000_000n && micros <= 500_000_000n).toBe(true);
      expect(ex.current).toEqual({ outcome: 'allowed', determining: ['approvers-refund-to-500'] });
      expect(ex.candidate).toEqual({
        outcome: 'refused',
        code: 'policy_denied',
        determining: ['refund-limit-100'],
      });
    }
    for (const ex of all.report.byPair.find((p) => p.pair === 'refused->refused')!.examples) {
      expect(ex.current.determining).toEqual([]);
      expect(ex.candidate.determining).toEqual(['refund-limit-100']);
    }
    expect(v2.report.toApproval).toBe(0);

    // The shadow of v2 over the same traffic: the same report, line for line.
    const { status, report } = await shadowReport(f.store, 'acme');
    expect(status).toMatchObject({ dropped: 0, uncompiled: 0, unreadable: 0 });
    expect(report.evaluated).toBe(DECISIONS);
    expect(differenceJson(v2.report)).toEqual(differenceJson(report));
  }, 120_000);

  it('counts decisions made before inputs were recorded as unrecorded, in a migrated data dir and in a file from before the migration', async () => {
    f = await fixture();
    await register(f.store, 'acme', {
      caps: [capability('acme', 'refunds.issue', { actions: ['refund'] })],
      grants: [['bot', 'refunds.issue']],
      policy: V1.replace('principal.roles.contains("approver") && ', ''),
      tasks: [{ id: 't1', sponsor: 'alice', budget: 10n ** 15n, actors: ['bot'] }],
    });
    const bot = (await f.store.actors.get('acme', 'bot'))!;
    const rules = { policy: new PolicyCache(), constraints: admits };
    for (const i of [1, 2, 3]) {
      const req = decisionRequest({
        capability: 'refunds.issue',
        action: 'refund',
        step: `r${i}`,
        amountUsd: 150,
      });
      await f.store.decisions.decide(req, bot, 'new', rules);
    }
    await f.store.close();
    const replay = async () => {
      const recorded = await openRecordedDecisions(f!.dir.database);
      try {
        return await replayPolicy(recorded, { tenantId: 'acme', text: V2, source: 'v2.cedar', range: {} });
      } finally {
        await recorded.close();
      }
    };
    const db = new Database(f.dir.database);
    try {
      // The first decision as one made before the migration: the journal holds it, no inputs.
      db.prepare('DELETE FROM decision_inputs WHERE tenant_id = ? AND sequence = 1').run('acme');
      const migrated = await replay();
      expect(migrated.counts).toEqual({
        read: 3,
        replayed: 2,
        unrecorded: 1,
        beforePolicy: 0,
        unreadable: 0,
      });
      expect(migrated.report.differing).toBe(2);
      // A file from before the migration, read without migrating it: every decision unrecorded.
      db.exec('DROP TABLE decision_inputs; DROP TABLE policy_input_snapshots');
      const older = await replay();
      expect(older.counts).toEqual({ read: 3, replayed: 0, unrecorded: 3, beforePolicy: 0, unreadable: 0 });
      expect(older.report).toMatchObject({ evaluated: 0, differing: 0 });
      const tables = db.prepare("SELECT name FROM sqlite_master WHERE name = 'decision_inputs'").all();
      expect(tables).toEqual([]);
    } finally {
      db.close();
    }
  });
});
