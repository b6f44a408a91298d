/**
 * Running a suite: a case's verdict is the one the daemon's policy step gives the same
 * request (checked against core's decision pipeline), what the suite does not name comes
 * from the registrations, and anything neither holds is an error, never a guess.
 */
import { describe, expect, it } from 'vitest';
import { admits } from '../../../src/core/constraints.js';
import { decision, type PipelineRules } from '../../../src/core/decision/pipeline.js';
import { runSync } from '../../../src/core/use-case.js';
import { PolicyCache } from '../../../src/daemon/policy-cache.js';
import { verdictOf } from '../../../src/policy/policy-difference.js';
import type { PolicyInputs } from '../../../src/policy/policy-inputs.js';
import {
  compileForSuite,
  meets,
  resolveSuite,
  runSuite,
  type Registrations,
} from '../../../src/policy/policy-test-run.js';
import { parseSuite } from '../../../src/policy/policy-test-suite.js';
import { authorizeUncached } from '../../../src/policy/authorization.js';
import { bot, memoryOps, NOW, world } from '../../helpers/decision-memory.js';
import { decisionRequest } from '../../helpers/decision-request.js';

const POLICY = `@id("agents") permit (principal is Actor, action, resource) when { principal.kind == "agent" };
@id("limit") @reason("over 5 USD") forbid (principal, action, resource) when { context.amount_micros > 5000000 };
@id("night") forbid (principal, action, resource) when { context.now_epoch_s < 1767225600 };
`;

/** The memory world's registrations (test/helpers/decision-memory.ts) as a tenant would give them. */
const ACME: Registrations = {
  tenantId: 'acme',
  approvalTier: 3,
  actors: new Map([['bot', { kind: 'agent', roles: [], manager: 'alice' }]]),
  capabilities: new Map([
    [
      'crm.write',
      { tier: 1, irreversible: false, custody: 'grant', actions: ['write'], costMicros: 1_000_000n },
    ],
    [
      'pay.send',
      { tier: 4, irreversible: true, custody: 'grant', actions: ['write'], costMicros: 2_000_000n },
    ],
  ]),
};

function suite(cases: string, head = ''): ReturnType<typeof parseSuite> {
  return parseSuite(`${head}cases:\n${cases}`, 'x_test.yaml');
}

describe('running a policy test suite', () => {
  it('gives each case the verdict the decision pipeline gives the same request', () => {
    const s =
      suite(`  - { actor: bot, capability: crm.write, action: write, amount_usd: 3, time: "${NOW.toISOString()}", expect: allowed }
  - { actor: bot, capability: crm.write, action: write, amount_usd: 6, time: "${NOW.toISOString()}", expect: { outcome: refused, code: policy_denied, reason: over 5 USD } }
  - { actor: bot, capability: pay.send, action: write, amount_usd: 2, time: "${NOW.toISOString()}", expect: deferred }
`);
    const resolved = resolveSuite(s, ACME, NOW);
    const result = runSuite(compileForSuite(POLICY, 'p.cedar', resolved.verbs), resolved, {
      tenantId: 'acme',
      policy: 'p.cedar',
    });
    expect(result).toMatchObject({ passed: 3, failed: 0 });

    // The same three requests through core's decision, with the same policy and registrations.
    const w = world();
    w.policy = POLICY;
    const rules: PipelineRules = { policy: new PolicyCache(), constraints: admits };
    const specs = [
      { amountUsd: 3, step: 'a' },
      { amountUsd: 6, step: 'b' },
      { capability: 'pay.send', amountUsd: 2, step: 'c' },
    ];
    const daemon = specs.map((spec) => {
      const sealed = runSync(
        decision(decisionRequest(spec), bot, 'new', rules, () => NOW),
        memoryOps(w),
      );
      if (sealed.kind !== 'sealed' || sealed.policyStep === undefined) throw new Error('no policy step');
      const step = sealed.policyStep;
      return {
        outcome: sealed.outcome,
        code: sealed.outcome === 'refused' ? sealed.code : undefined,
        determining: step.determining,
      };
    });
    expect(
      result.cases.map((c) => ({
        outcome: c.actual.outcome,
        code: c.actual.code,
        determining: c.actual.determining,
      })),
    ).toEqual(daemon);
  });

  it('reports a failing case with what it expected and what the policy answered', () => {
    const s =
      suite(`  - { name: late, actor: bot, capability: crm.write, action: write, amount_usd: 1, time: "2025-06-01T00:00:00Z", expect: allowed }
`);
    const resolved = resolveSuite(s, ACME, NOW);
    const result = runSuite(compileForSuite(POLICY, 'p.cedar', resolved.verbs), resolved, {
      tenantId: 'acme',
      policy: 'p.cedar',
    });
    expect(result).toMatchObject({ passed: 0, failed: 1 });
    expect(result.cases[0]).toEqual({
      name: 'late',
      at: 'x_test.yaml:2:5',
      passed: false,
      expected: { outcome: 'allowed' },
      actual: {
        outcome: 'refused',
        code: 'policy_denied',
        reason: 'forbidden by policy night',
        determining: ['night'],
      },
    });
  });

  it('takes the time of the run for a case that names none', () => {
    const s = suite('  - { actor: bot, capability: crm.write, action: write, expect: allowed }\n');
    const early = resolveSuite(s, ACME, new Date('2025-01-01T00:00:00Z'));
    const late = resolveSuite(s, ACME, NOW);
    const compiled = compileForSuite(POLICY, 'p.cedar', late.verbs);
    expect(runSuite(compiled, early, { tenantId: 'acme', policy: 'p' }).failed).toBe(1);
    expect(runSuite(compiled, late, { tenantId: 'acme', policy: 'p' }).failed).toBe(0);
  });

  it("uses the suite's own principals, capabilities and approval tier over the registrations", () => {
    const s = suite(
      '  - { actor: bot, capability: crm.write, action: write, amount_usd: 1, expect: allowed }\n',
      'approval_tier: 1\nprincipals:\n  bot: { kind: human, roles: [operator] }\ncapabilities:\n  crm.write: { tier: 2, actions: [write, sync] }\n',
    );
    const resolved = resolveSuite(s, ACME, NOW);
    expect(resolved.cases[0]!.inputs).toMatchObject({
      actor: { id: 'bot', kind: 'human', roles: ['operator'], manager: null },
      capability: { id: 'crm.write', tier: 2, irreversible: false },
      approvalTier: 1,
    });
    expect(resolved.verbs).toEqual(['read', 'sync', 'write']);
    // tier 2 at or above the suite's approval tier 1: the policy's allow waits for a person
    const compiled = compileForSuite('permit (principal, action, resource);', 'p', resolved.verbs);
    expect(runSuite(compiled, resolved, { tenantId: 'acme', policy: 'p' }).cases[0]!.actual.outcome).toBe(
      'deferred',
    );
  });

  it("takes a case's amount from its capability's estimate, as the daemon does", () => {
    const s = suite('  - { actor: bot, capability: pay.send, action: write, expect: deferred }\n');
    expect(resolveSuite(s, ACME, NOW).cases[0]!.inputs.amountMicros).toBe('2000000');
  });

  it('refuses a case naming what neither the suite nor the tenant holds, or a verb its capability does not take', () => {
    const s = suite(`  - { actor: ghost, capability: crm.write, action: write, expect: allowed }
  - { actor: bot, capability: nope, action: write, expect: allowed }
  - { actor: bot, capability: crm.write, action: delete, expect: allowed }
`);
    expect(() => resolveSuite(s, ACME, NOW)).toThrow(
      [
        'x_test.yaml: 3 cases name what neither the suite nor the registrations hold:',
        '  x_test.yaml:2:14: cases[0] ("ghost write crm.write").actor: "ghost" is not in the suite\'s principals nor an actor of tenant acme',
        '  x_test.yaml:3:31: cases[1] ("bot write nope").capability: "nope" is not in the suite\'s capabilities nor a capability of tenant acme',
        '  x_test.yaml:4:50: cases[2] ("bot delete crm.write").action: "delete" is not one of crm.write\'s actions (write); the daemon refuses it before the policy step',
      ].join('\n'),
    );
    expect(() => resolveSuite(s, undefined, NOW)).toThrow(/"ghost" is not in the suite's principals$/m);
  });

  it('refuses a policy that does not validate as policy_invalid, every diagnostic listed', () => {
    expect(() =>
      compileForSuite('permit (principal, action == Action::"nope", resource);', 'p.cedar', ['read']),
    ).toThrow(expect.objectContaining({ code: 'policy_invalid', kind: 'invalid_request', field: 'policy' }));
    expect(() =>
      compileForSuite('permit (principal, action == Action::"nope", resource);', 'p.cedar', ['read']),
    ).toThrow(/^p\.cedar does not validate against the schema \(actions: read\), 1 error:\n {2}p\.cedar:1:/);
  });

  it('refuses every case as no_policy when the tenant has no policy', () => {
    const s = suite(
      '  - { actor: bot, capability: crm.write, action: write, expect: { outcome: refused, code: no_policy } }\n',
    );
    expect(runSuite(null, resolveSuite(s, ACME, NOW), { tenantId: 'acme', policy: 'none' }).passed).toBe(1);
  });

  it('matches determining policies in order, and a reason exactly, only when the case names them', () => {
    const actual = {
      outcome: 'refused' as const,
      code: 'policy_denied',
      reason: 'r',
      determining: ['a', 'b'],
    };
    expect(meets(actual, { outcome: 'refused', code: 'policy_denied' })).toBe(true);
    expect(meets(actual, { outcome: 'refused', code: 'policy_denied', determining: ['a', 'b'] })).toBe(true);
    expect(meets(actual, { outcome: 'refused', code: 'policy_denied', determining: ['b', 'a'] })).toBe(false);
    expect(meets(actual, { outcome: 'refused', code: 'policy_denied', determining: ['a'] })).toBe(false);
    expect(meets(actual, { outcome: 'refused', code: 'policy_denied', reason: 'R' })).toBe(false);
    expect(meets(actual, { outcome: 'refused', code: 'no_policy' })).toBe(false);
    expect(meets(actual, { outcome: 'allowed' })).toBe(false);
  });

  it('reads a verdict the way the shared verdict does (policy-difference.ts)', () => {
    const s = suite(
      '  - { actor: bot, capability: pay.send, action: write, amount_usd: 1, expect: deferred }\n',
    );
    const resolved = resolveSuite(s, ACME, NOW);
    const compiled = compileForSuite(POLICY, 'p', resolved.verbs);
    const { inputs } = resolved.cases[0]!;
    const shared = verdictOf(
      authorizeUncached(compiled, { tenantId: 'acme', ...inputsAsRequest(inputs) }),
      inputs,
    );
    const r = runSuite(compiled, resolved, { tenantId: 'acme', policy: 'p' }).cases[0]!.actual;
    expect({ outcome: r.outcome, determining: r.determining }).toEqual(shared);
  });
});

function inputsAsRequest(inputs: PolicyInputs) {
  return {
    actor: inputs.actor,
    capability: inputs.capability,
    action: inputs.action,
    taskId: inputs.taskId,
    amountMicros: BigInt(inputs.amountMicros),
    route: inputs.route,
    nowEpochS: inputs.nowEpochS,
  };
}
