import { describe, expect, it } from 'vitest';
import { EXAMPLE_POLICY } from '../../../src/policy/example-policy.js';
import { compilePolicySet, PolicyRejectedError } from '../../../src/policy/policy-set.js';
import { VERBS } from './fixtures.js';

describe('compilePolicySet', () => {
  it('keys a compiled set by its content and schema', () => {
    const a = compilePolicySet(EXAMPLE_POLICY, VERBS);
    expect(compilePolicySet(EXAMPLE_POLICY, [...VERBS].reverse()).id).toBe(a.id);
    expect(compilePolicySet(`${EXAMPLE_POLICY}\n`, VERBS).id).not.toBe(a.id);
    expect(compilePolicySet(EXAMPLE_POLICY, [...VERBS, 'launch']).id).not.toBe(a.id);
    expect(a.actions).toEqual(['delete', 'read', 'write']);
  });

  it('records each policy with its effect, label and annotations, in source order', () => {
    const compiled = compilePolicySet(EXAMPLE_POLICY, VERBS);
    const entries = [...compiled.policies.values()].sort((x, y) => x.order - y.order);
    expect(entries.map((p) => [p.cedarId, p.label, p.effect])).toEqual([
      ['policy0', 'agents-below-tier-3', 'permit'],
      ['policy1', 'human-operators', 'permit'],
      ['policy2', 'per-action-limit', 'forbid'],
      ['policy3', 'irreversible-brokered-only', 'forbid'],
      ['policy4', 'agents-need-a-manager', 'forbid'],
    ]);
    expect(entries[2]!.reason).toBe('the amount is over the 1000 USD limit for a single action');
    expect(entries[2]!.remedy).toMatch(/^split the work/);
    expect(EXAMPLE_POLICY.slice(entries[2]!.index)).toMatch(/^@id\("per-action-limit"\)/);
  });

  it('maps ids to policies past ten, where the engine orders policy10 before policy2', () => {
    const text = Array.from(
      { length: 12 },
      (_, k) => `@reason("r${k}")\nforbid (principal, action, resource) when { context.tier == ${k} };`,
    ).join('\n');
    const compiled = compilePolicySet(text, VERBS);
    for (let k = 0; k < 12; k++) expect(compiled.policies.get(`policy${k}`)!.reason).toBe(`r${k}`);
  });

  it('refuses an invalid text with every error positioned', () => {
    const text =
      'permit (principal, action, resource);\nforbid (principal, action, resource) when { resource.tierr > 3 };';
    let caught: unknown;
    try {
      compilePolicySet(text, VERBS);
    } catch (err) {
      caught = err;
    }
    expect(caught).toBeInstanceOf(PolicyRejectedError);
    const err = caught as PolicyRejectedError;
    expect(err.code).toBe('invalid_request');
    expect(err.field).toBe('policy');
    expect(err.reason).toMatch(/^policy: does not validate against the schema: 2:45: /);
    expect(err.diagnostics[0]).toMatchObject({ line: 2, column: 45, policyId: 'policy1' });
  });
});
