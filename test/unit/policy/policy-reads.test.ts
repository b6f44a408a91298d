import { describe, expect, it } from 'vitest';
import { EXAMPLE_POLICY } from '../../../src/policy/example-policy.js';
import { analysePolicyReads } from '../../../src/policy/policy-reads.js';
import type { PolicyReads } from '../../../src/policy/policy-reads.js';

function reads(text: string): PolicyReads {
  const analysis = analysePolicyReads(text);
  if (!analysis.cacheable) throw new Error(`expected a cacheable set, got: ${analysis.why}`);
  return analysis.reads;
}

function why(text: string): string {
  const analysis = analysePolicyReads(text);
  if (analysis.cacheable)
    throw new Error(`expected an uncacheable set, got ${JSON.stringify(analysis.reads)}`);
  return analysis.why;
}

describe('analysePolicyReads: what a policy set reads', () => {
  it('makes context.amount_micros part of the key when a policy compares it', () => {
    expect(reads('forbid (principal, action, resource) when { context.amount_micros > 1000000 };')).toEqual({
      principalId: false,
      resourceId: false,
      principal: [],
      resource: [],
      context: ['amount_micros'],
    });
  });

  it('reads nothing of a request for a permit-all set', () => {
    expect(reads('permit (principal, action, resource);')).toEqual({
      principalId: false,
      resourceId: false,
      principal: [],
      resource: [],
      context: [],
    });
  });

  it('collects every attribute of the example policy, and no id', () => {
    expect(reads(EXAMPLE_POLICY)).toEqual({
      principalId: false,
      resourceId: false,
      principal: ['kind', 'manager', 'roles'],
      resource: ['irreversible'],
      context: ['amount_micros', 'route', 'tier'],
    });
  });

  it('keys on the id when a scope or a condition compares the entity itself', () => {
    expect(reads('permit (principal == Actor::"a", action, resource);').principalId).toBe(true);
    expect(reads('permit (principal, action, resource in Capability::"c");').resourceId).toBe(true);
    expect(reads('permit (principal, action, resource is Capability in Capability::"c");').resourceId).toBe(
      true,
    );
    expect(reads('permit (principal is Actor, action, resource);').principalId).toBe(false);
    const r = reads(
      'permit (principal, action, resource) when { [Actor::"a", Actor::"b"].contains(principal) };',
    );
    expect(r).toMatchObject({ principalId: true, resourceId: false });
    expect(reads('permit (principal, action, resource) when { principal is Actor };').principalId).toBe(
      false,
    );
  });

  it('reads `has` tests and the first step of a path, in unless clauses and nested expressions', () => {
    const r = reads(
      'permit (principal, action, resource) unless { if principal has manager then resource.custody like "bro*" else context has task_id };',
    );
    expect(r).toMatchObject({ principal: ['manager'], resource: ['custody'], context: ['task_id'] });
    expect(reads('permit (principal, action, resource) when { context has route.x };').context).toEqual([
      'route',
    ]);
  });

  it('keys on the whole context when the record is used as a value', () => {
    expect(reads('permit (principal, action, resource) unless { context == {} };').context).toBe('all');
  });

  it('looks inside extension function calls', () => {
    const r = reads(
      'permit (principal, action, resource) when { decimal("1.5").lessThan(decimal("2.0")) && context.now_epoch_s > 5 };',
    );
    expect(r.context).toEqual(['now_epoch_s']);
  });
});

describe('analysePolicyReads: what it refuses to analyse', () => {
  it('does not cache a set that reads an attribute of an entity literal', () => {
    expect(
      why(
        'permit (principal, action, resource);\nforbid (principal, action, resource) when { Actor::"boss".kind == "agent" };',
      ),
    ).toContain('attribute "kind" of an expression other than a request variable');
  });

  it('does not cache a set that reads an attribute of a computed entity', () => {
    expect(
      why(
        'permit (principal, action, resource) when { (if context.tier > 1 then principal else principal).kind == "agent" };',
      ),
    ).toContain('other than a request variable');
  });

  it('does not cache a set that reads entity tags', () => {
    expect(why('permit (principal, action, resource) when { principal.hasTag("x") };')).toContain('"hasTag"');
  });

  it('does not cache a set holding a template or a text that does not parse', () => {
    expect(why('permit (principal == ?principal, action, resource);')).toBe('the policy set holds templates');
    expect(why('permit (principal, action, resource')).toBe('the policy set does not parse');
  });
});
