import { describe, expect, it } from 'vitest';
import { authorize } from '../../../src/policy/authorization.js';
import { EXAMPLE_POLICY } from '../../../src/policy/example-policy.js';
import { compilePolicySet } from '../../../src/policy/policy-set.js';
import { request, VERBS } from './fixtures.js';

const example = compilePolicySet(EXAMPLE_POLICY, VERBS);
const permitAll = 'permit (principal, action, resource);\n';

describe('authorize: permits and forbids', () => {
  it('allows what a permit covers and names the permit', () => {
    expect(authorize(example, request())).toEqual({
      decision: 'allow',
      basis: 'permit',
      determining: ['agents-below-tier-3'],
    });
  });

  it('denies with a generic reason when no permit applies', () => {
    const decision = authorize(
      example,
      request({ capability: { id: 'payments.send', tier: 3, irreversible: false, custody: 'brokered' } }),
    );
    expect(decision).toMatchObject({ decision: 'deny', basis: 'no_permit', determining: [] });
    expect(decision.reason).toBe('no policy permits agent-1 to read payments.send');
    expect(decision.remedy).toContain('permit action "read" on capability "payments.send" in tenant acme');
  });

  it('takes reason and remedy from the forbid that applies, over any permit', () => {
    const decision = authorize(example, request({ amountMicros: 1_000_000_001n }));
    expect(decision).toEqual({
      decision: 'deny',
      basis: 'forbid',
      reason: 'the amount is over the 1000 USD limit for a single action',
      remedy:
        "split the work into actions of at most 1000 USD, or ask an operator to raise the limit in the tenant's policy",
      determining: ['per-action-limit'],
    });
    // The limit is exact to the micro-dollar.
    expect(authorize(example, request({ amountMicros: 1_000_000_000n })).decision).toBe('allow');
  });

  it('names every applying forbid and lets the first one in the text that explains itself speak', () => {
    const text = [
      permitAll,
      '@id("silent") forbid (principal, action, resource) when { context.tier > 0 };',
      '@id("second") @reason("second reason") @remedy("second remedy")',
      'forbid (principal, action, resource) when { context.tier > 0 };',
      '@id("third") @reason("third reason") forbid (principal, action, resource) when { context.tier > 0 };',
    ].join('\n');
    const decision = authorize(compilePolicySet(text, VERBS), request());
    expect(decision).toMatchObject({
      decision: 'deny',
      basis: 'forbid',
      reason: 'second reason',
      remedy: 'second remedy',
      determining: ['silent', 'second', 'third'],
    });
  });

  it('gives a forbid without annotations a reason naming it, and no remedy', () => {
    const text = `${permitAll}forbid (principal, action == Action::"delete", resource);`;
    const decision = authorize(compilePolicySet(text, VERBS), request({ action: 'delete' }));
    expect(decision).toEqual({
      decision: 'deny',
      basis: 'forbid',
      reason: 'forbidden by policy policy1',
      determining: ['policy1'],
    });
  });

  it('reads the annotations of the right policy when the set has more than ten', () => {
    const forbids = Array.from(
      { length: 12 },
      (_, k) =>
        `@reason("tier ${k} is closed") forbid (principal, action, resource) when { resource.tier == ${k} };`,
    );
    const compiled = compilePolicySet([permitAll, ...forbids].join('\n'), VERBS);
    for (const tier of [1, 2, 9, 10, 11]) {
      const decision = authorize(
        compiled,
        request({ capability: { id: 'c', tier, irreversible: false, custody: 'brokered' } }),
      );
      expect(decision.reason).toBe(`tier ${tier} is closed`);
      expect(decision.determining).toEqual([`policy${tier + 1}`]);
    }
  });
});

describe('authorize: fail closed', () => {
  it('denies everything for a tenant with no policy set and says how to install one', () => {
    for (const compiled of [null, undefined]) {
      expect(authorize(compiled, request({ tenantId: 'acme' }))).toEqual({
        decision: 'deny',
        basis: 'no_policy_set',
        reason: 'tenant acme has no policy set, so every action is denied',
        remedy: 'install one with `svc policy set --tenant acme --file policy.cedar`',
        determining: [],
      });
    }
  });

  it('denies a verb outside the schema the set was compiled with', () => {
    const compiled = compilePolicySet(permitAll, VERBS);
    const decision = authorize(compiled, request({ action: 'launch' }));
    expect(decision).toMatchObject({ decision: 'deny', basis: 'unknown_action', determining: [] });
    expect(decision.remedy).toContain('svc policy set --tenant acme');
    expect(
      authorize(compilePolicySet(permitAll, [...VERBS, 'launch']), request({ action: 'launch' })).decision,
    ).toBe('allow');
  });

  it('denies when a policy errors, even though Cedar alone would allow', () => {
    // Validation cannot rule out overflow: this forbid errors for amounts above ~9.2e12 micros.
    const text = `${permitAll}@id("scaled-spend") forbid (principal, action, resource) when { context.amount_micros * 1000000 > 5 };`;
    const compiled = compilePolicySet(text, VERBS);
    expect(authorize(compiled, request({ amountMicros: 1n })).basis).toBe('forbid');
    const decision = authorize(compiled, request({ amountMicros: 10_000_000_000_000n }));
    expect(decision).toMatchObject({
      decision: 'deny',
      basis: 'evaluation_error',
      determining: ['scaled-spend'],
    });
    expect(decision.errors?.[0]).toContain('overflow');
    expect(decision.reason).not.toContain('integer overflow');
  });

  it('denies an amount the engine cannot carry exactly instead of rounding it', () => {
    const compiled = compilePolicySet(permitAll, VERBS);
    expect(authorize(compiled, request({ amountMicros: BigInt(Number.MAX_SAFE_INTEGER) })).decision).toBe(
      'allow',
    );
    const decision = authorize(compiled, request({ amountMicros: BigInt(Number.MAX_SAFE_INTEGER) + 1n }));
    expect(decision).toMatchObject({ decision: 'deny', basis: 'unrepresentable_request' });
    expect(authorize(compiled, request({ amountMicros: -1n })).basis).toBe('unrepresentable_request');
    expect(authorize(compiled, request({ nowEpochS: 1.5 })).basis).toBe('unrepresentable_request');
  });

  it('denies a request the engine refuses as not conforming to the schema', () => {
    const compiled = compilePolicySet(permitAll, VERBS);
    const decision = authorize(
      compiled,
      request({ capability: { id: 'c', tier: 1, irreversible: 'no' as unknown as boolean, custody: 'x' } }),
    );
    expect(decision).toMatchObject({ decision: 'deny', basis: 'evaluation_error', determining: [] });
    expect(decision.errors?.length).toBeGreaterThan(0);
  });
  it('denies when the engine bindings throw on a value they cannot convert', () => {
    const compiled = compilePolicySet(permitAll, VERBS);
    const decision = authorize(compiled, request({ taskId: 7n as unknown as string }));
    expect(decision).toMatchObject({ decision: 'deny', basis: 'evaluation_error' });
  });
});

describe('authorize: what policies can see', () => {
  const cases: {
    name: string;
    condition: string;
    yes: Parameters<typeof request>[0];
    no: Parameters<typeof request>[0];
  }[] = [
    {
      name: 'context.task_id',
      condition: 'context.task_id == "task-7"',
      yes: { taskId: 'task-7' },
      no: { taskId: 'task-8' },
    },
    {
      name: 'context.route',
      condition: 'context.route == "brokered"',
      yes: { route: 'brokered' },
      no: { route: 'action' },
    },
    {
      name: 'context.now_epoch_s',
      condition: 'context.now_epoch_s >= 1800000000',
      yes: { nowEpochS: 1_800_000_000 },
      no: { nowEpochS: 1_799_999_999 },
    },
    {
      name: 'context.amount_micros',
      condition: 'context.amount_micros == 9007199254740991',
      yes: { amountMicros: 9_007_199_254_740_991n },
      no: { amountMicros: 9_007_199_254_740_990n },
    },
    {
      name: 'context.tier and resource.tier',
      condition: 'context.tier == 4 && resource.tier == 4',
      yes: { capability: { id: 'c', tier: 4, irreversible: false, custody: 'brokered' } },
      no: { capability: { id: 'c', tier: 5, irreversible: false, custody: 'brokered' } },
    },
    {
      name: 'context.irreversible and resource.irreversible',
      condition: 'context.irreversible && resource.irreversible',
      yes: { capability: { id: 'c', tier: 1, irreversible: true, custody: 'brokered' } },
      no: { capability: { id: 'c', tier: 1, irreversible: false, custody: 'brokered' } },
    },
    {
      name: 'resource.custody',
      condition: 'resource.custody == "pass_through"',
      yes: { capability: { id: 'c', tier: 1, irreversible: false, custody: 'pass_through' } },
      no: { capability: { id: 'c', tier: 1, irreversible: false, custody: 'brokered' } },
    },
    {
      name: 'principal.kind and principal.roles',
      condition: 'principal.kind == "human" && principal.roles.contains("approver")',
      yes: { actor: { id: 'bob', kind: 'human', roles: ['operator', 'approver'] } },
      no: { actor: { id: 'bob', kind: 'human', roles: ['operator'] } },
    },
    {
      name: 'principal.manager',
      condition: 'principal has manager && principal.manager == "alice"',
      yes: { actor: { id: 'agent-1', kind: 'agent', roles: [], manager: 'alice' } },
      no: { actor: { id: 'agent-1', kind: 'agent', roles: [], manager: null } },
    },
    {
      name: 'principal and resource ids',
      condition: 'principal == Actor::"agent-9" && resource == Capability::"crm.contacts"',
      yes: { actor: { id: 'agent-9', kind: 'agent', roles: [] } },
      no: {},
    },
    {
      name: 'action',
      condition: 'action == Action::"write"',
      yes: { action: 'write' },
      no: { action: 'read' },
    },
  ];

  // `authorize` caches: were the attribute left out of the cache key, the second request
  // would get the first one's answer.
  it.each(cases)('$name', ({ condition, yes, no }) => {
    const compiled = compilePolicySet(`permit (principal, action, resource) when { ${condition} };`, VERBS);
    expect(authorize(compiled, request(yes))).toMatchObject({ decision: 'allow', determining: ['policy0'] });
    expect(authorize(compiled, request(no))).toMatchObject({ decision: 'deny', basis: 'no_permit' });
  });
});

describe('the example policy', () => {
  const human = { id: 'ops-1', kind: 'human' as const, roles: ['operator'] };

  it('lets a human operator act on a high tier', () => {
    const capability = { id: 'payments.send', tier: 5, irreversible: false, custody: 'brokered' };
    expect(authorize(example, request({ actor: human, capability })).determining).toEqual([
      'human-operators',
    ]);
  });

  it('keeps irreversible capabilities on the brokered route', () => {
    const capability = { id: 'db.drop', tier: 1, irreversible: true, custody: 'brokered' };
    expect(authorize(example, request({ capability, route: 'action' })).reason).toBe(
      'an irreversible capability may only be used through the brokered route',
    );
    expect(authorize(example, request({ capability, route: 'brokered' })).decision).toBe('allow');
  });

  it('stops an agent with no manager on record', () => {
    const decision = authorize(example, request({ actor: { id: 'stray', kind: 'agent', roles: [] } }));
    expect(decision).toMatchObject({ decision: 'deny', determining: ['agents-need-a-manager'] });
  });
});
