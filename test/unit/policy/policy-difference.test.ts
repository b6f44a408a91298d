import { describe, expect, it } from 'vitest';
import { authorize } from '../../../src/policy/authorization.js';
import { compilePolicySet } from '../../../src/policy/policy-set.js';
import {
  differs,
  summarise,
  verdictOf,
  type PolicyDifference,
  type PolicyVerdict,
} from '../../../src/policy/policy-difference.js';
import { inputsOf, parseInputs, requestOf } from '../../../src/policy/policy-inputs.js';
import { request, VERBS } from './fixtures.js';

const limit = (micros: number) =>
  compilePolicySet(
    `@id("small") permit (principal, action, resource) when { context.amount_micros <= ${micros} };\n`,
    VERBS,
  );

describe('policy inputs', () => {
  it('round-trip through JSON and evaluate again to the same decision', () => {
    const req = request({ amountMicros: 9_007_199_254_740_991n });
    const inputs = inputsOf(req, 3);
    const back = parseInputs(JSON.parse(JSON.stringify(inputs)));
    expect(back).toEqual(inputs);
    expect(requestOf('acme', back!)).toEqual(req);
    const policy = limit(10_000_000);
    expect(authorize(policy, requestOf('acme', back!))).toEqual(authorize(policy, req));
  });

  it('refuse a stored row that is not whole', () => {
    const inputs = JSON.parse(JSON.stringify(inputsOf(request(), 3)));
    expect(parseInputs({ ...inputs, amountMicros: '1.5' })).toBeUndefined();
    expect(parseInputs({ ...inputs, approvalTier: undefined })).toBeUndefined();
    expect(parseInputs({ ...inputs, actor: { ...inputs.actor, kind: 'robot' } })).toBeUndefined();
    expect(parseInputs({ ...inputs, extra: 1 })).toBeUndefined();
  });
});

describe('verdicts', () => {
  it('read an allow as deferred where the capability waits for a person', () => {
    const allow = authorize(limit(10_000_000), request());
    expect(verdictOf(allow, inputsOf(request(), 3))).toEqual({ outcome: 'allowed', determining: ['small'] });
    const irreversible = request({
      capability: { id: 'crm.contacts', tier: 1, irreversible: true, custody: 'brokered' },
    });
    expect(verdictOf(allow, inputsOf(irreversible, 3)).outcome).toBe('deferred');
    expect(verdictOf(allow, inputsOf(request(), 1)).outcome).toBe('deferred');
  });

  it('give the refusal code of a deny', () => {
    const inputs = inputsOf(request(), 3);
    expect(verdictOf(authorize(limit(1), request()), inputs)).toEqual({
      outcome: 'refused',
      code: 'policy_denied',
      determining: [],
    });
    expect(verdictOf(authorize(null, request()), inputs).code).toBe('no_policy');
  });

  it('differ in outcome, code or determining policies', () => {
    const a: PolicyVerdict = { outcome: 'allowed', determining: ['p1'] };
    expect(differs(a, { outcome: 'allowed', determining: ['p1'] })).toBe(false);
    expect(differs(a, { outcome: 'allowed', determining: ['p2'] })).toBe(true);
    expect(differs(a, { outcome: 'allowed', determining: ['p1', 'p2'] })).toBe(true);
    expect(differs(a, { outcome: 'deferred', determining: ['p1'] })).toBe(true);
    const r: PolicyVerdict = { outcome: 'refused', code: 'policy_denied', determining: [] };
    expect(differs(r, { ...r, code: 'no_policy' })).toBe(true);
  });
});

describe('summarise', () => {
  const diff = (actor: string, capability: string, at: string, to: PolicyVerdict): PolicyDifference => ({
    at,
    intentId: `int_${at}`,
    inputs: inputsOf(
      request({
        actor: { id: actor, kind: 'agent', roles: [], manager: null },
        capability: { id: capability, tier: 1, irreversible: false, custody: 'brokered' },
      }),
      3,
    ),
    current: { outcome: 'allowed', determining: ['small'] },
    candidate: to,
  });
  const refused: PolicyVerdict = { outcome: 'refused', code: 'policy_denied', determining: [] };
  const deferred: PolicyVerdict = { outcome: 'deferred', determining: ['big'] };

  it('counts by pair, capability and actor, most first, with the earliest examples', () => {
    const report = summarise(
      10,
      [
        diff('a1', 'c1', '2026-01-03T00:00:00Z', refused),
        diff('a2', 'c1', '2026-01-01T00:00:00Z', refused),
        diff('a1', 'c2', '2026-01-02T00:00:00Z', refused),
        diff('a1', 'c2', '2026-01-04T00:00:00Z', deferred),
      ],
      2,
    );
    expect(report.evaluated).toBe(10);
    expect(report.differing).toBe(4);
    expect(report.toApproval).toBe(1);
    expect(report.byPair.map((p) => [p.pair, p.count])).toEqual([
      ['allowed->refused', 3],
      ['allowed->deferred', 1],
    ]);
    expect(report.byPair[0]!.examples.map((e) => e.at)).toEqual([
      '2026-01-01T00:00:00Z',
      '2026-01-02T00:00:00Z',
    ]);
    expect(report.byCapability).toEqual([
      { key: 'c1', count: 2 },
      { key: 'c2', count: 2 },
    ]);
    expect(report.byActor).toEqual([
      { key: 'a1', count: 3 },
      { key: 'a2', count: 1 },
    ]);
  });

  it('is empty when nothing differs', () => {
    expect(summarise(5, [])).toEqual({
      evaluated: 5,
      differing: 0,
      byPair: [],
      byCapability: [],
      byActor: [],
      toApproval: 0,
    });
  });
});
