import { describe, expect, it } from 'vitest';
import { EXAMPLE_POLICY } from '../../../src/policy/example-policy.js';
import { validatePolicy } from '../../../src/policy/validation.js';
import { BASE_VERBS, verbsOf } from '../../../src/policy/verbs.js';

describe('verbsOf: the actions of a tenant schema', () => {
  it('is read and write for a tenant with no capabilities', () => {
    expect(verbsOf([])).toEqual(['read', 'write']);
    expect(BASE_VERBS).toEqual(['read', 'write']);
  });

  it('adds every registered verb once, sorted, whatever order they come in', () => {
    expect(verbsOf([{ actions: ['write', 'refund'] }, { actions: ['delete', 'refund', 'read'] }])).toEqual([
      'delete',
      'read',
      'refund',
      'write',
    ]);
  });

  it('keeps read and write when no capability registers them, so a policy naming them stays valid', () => {
    const text = 'permit (principal, action in [Action::"read", Action::"write"], resource);';
    expect(validatePolicy(text, verbsOf([{ actions: ['refund'] }])).ok).toBe(true);
    expect(validatePolicy(EXAMPLE_POLICY, verbsOf([{ actions: ['refund'] }])).ok).toBe(true);
  });
});
