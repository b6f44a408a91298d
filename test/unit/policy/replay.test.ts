import { describe, expect, it } from 'vitest';
import type { RecordedDecision, StoredInputs } from '../../../src/core/decision/recorded-inputs.js';
import { compilePolicySet } from '../../../src/policy/policy-set.js';
import { Replay } from '../../../src/policy/replay.js';

const ACTOR = 1;
const CAPABILITY = 2;
const PERMITTED = 3;
const NONE = 4;
const BROKEN = 5;
const bodies = new Map<number, string>([
  [ACTOR, JSON.stringify({ id: 'bot', kind: 'agent', manager: 'alice', roles: [] })],
  [CAPABILITY, JSON.stringify({ custody: 'grant', id: 'pay', irreversible: false, tier: 1 })],
  [PERMITTED, JSON.stringify(['policy0'])],
  [NONE, JSON.stringify([])],
  [BROKEN, '{"id": "bot"'],
]);

const inputs = (over: Partial<StoredInputs> = {}): StoredInputs => ({
  policyVersion: 3,
  actor: ACTOR,
  capability: CAPABILITY,
  determining: PERMITTED,
  action: 'write',
  amountMicros: 2_000_000n,
  brokered: false,
  nowEpochS: 1_800_000_000,
  approvalTier: 3,
  allow: true,
  noPolicy: false,
  ...over,
});
let seq = 0;
const decision = (i: StoredInputs | undefined, code: string | null = null): RecordedDecision => ({
  sequence: ++seq,
  intentId: `int_${seq}`,
  taskId: 't1',
  at: '2026-06-01T12:00:00.000Z',
  inputs: i,
  code,
});

describe('Replay', () => {
  it('counts and skips what it cannot replay faithfully, and compares the rest with the recorded verdict', () => {
    const candidate = compilePolicySet(
      'permit (principal, action, resource) when { context.amount_micros <= 1000000 };',
      ['write'],
    );
    const replay = new Replay('acme', candidate, bodies);
    replay.add([
      decision(inputs()), // allowed then, 2 USD: the candidate's 1 USD limit refuses it
      decision(inputs({ amountMicros: 500_000n })), // allowed then and now
      decision(
        inputs({ allow: false, noPolicy: true, determining: NONE, policyVersion: 0, amountMicros: 1n }),
      ), // no policy then
      decision(undefined, null), // allowed before inputs were recorded
      decision(undefined, 'budget_exceeded'), // reached the policy before inputs were recorded
      decision(undefined, 'not_permitted'), // refused before the policy step
      decision(undefined, 'unknown_task'),
      decision(inputs({ actor: BROKEN })),
      decision(inputs({ capability: 99 })),
    ]);
    const r = replay.finish();
    expect(r.counts).toEqual({ read: 9, replayed: 3, unrecorded: 2, beforePolicy: 2, unreadable: 2 });
    expect(r.versions).toEqual([0, 3]);
    expect(r.range).toEqual({ from: seq - 8, to: seq - 6 });
    expect(r.report.evaluated).toBe(3);
    expect(r.report.byPair.map((p) => [p.pair, p.count])).toEqual([
      ['allowed->refused', 1],
      ['refused->allowed', 1],
    ]);
    const [toRefused] = r.report.byPair.find((p) => p.pair === 'allowed->refused')!.examples;
    expect(toRefused).toMatchObject({
      seq: seq - 8,
      current: { outcome: 'allowed', determining: ['policy0'] },
      candidate: { outcome: 'refused', code: 'policy_denied', determining: [] },
      inputs: { actor: { id: 'bot', roles: [] }, amountMicros: '2000000', approvalTier: 3, taskId: 't1' },
    });
    const [fromNoPolicy] = r.report.byPair.find((p) => p.pair === 'refused->allowed')!.examples;
    expect(fromNoPolicy!.current).toEqual({ outcome: 'refused', code: 'no_policy', determining: [] });
  });

  it('reads a permit of an irreversible capability, or one at the approval tier, as going to approval', () => {
    const candidate = compilePolicySet('permit (principal, action, resource);', ['write']);
    const replay = new Replay('acme', candidate, bodies);
    replay.add([decision(inputs({ allow: false, determining: NONE, approvalTier: 1 }))]);
    const r = replay.finish();
    expect(r.report.byPair.map((p) => p.pair)).toEqual(['refused->deferred']);
    expect(r.report.toApproval).toBe(1);
  });
});
