import { describe, expect, it } from 'vitest';
import { EXAMPLE_POLICY } from '../../../src/policy/example-policy.js';
import { analysePolicyReads } from '../../../src/policy/policy-reads.js';
import type { PolicyReads } from '../../../src/policy/policy-reads.js';

function reads(text: string): PolicyReads {
  const analysis = analysePolicyReads(text);
  if (!analysis.cacheable) throw new Error(`expected a cacheable set, got: ${analysis.why}`);
  return analysis.reads;
}

const NONE = { principal: new Map(), resource: new Map(), context: new Map() };

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
      intervals: { ...NONE, context: new Map([['amount_micros', [1000000n]]]) },
    });
  });

  it('reads nothing of a request for a permit-all set', () => {
    expect(reads('permit (principal, action, resource);')).toEqual({
      principalId: false,
      resourceId: false,
      principal: [],
      resource: [],
      context: [],
      intervals: NONE,
    });
  });

  it('collects every attribute of the example policy, and no id', () => {
    expect(reads(EXAMPLE_POLICY)).toEqual({
      principalId: false,
      resourceId: false,
      principal: ['kind', 'manager', 'roles'],
      resource: ['irreversible'],
      context: ['amount_micros', 'route', 'tier'],
      intervals: {
        ...NONE,
        context: new Map([
          ['amount_micros', [1000000000n]],
          ['tier', [3n]],
        ]),
      },
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

describe('analysePolicyReads: attributes keyed by interval', () => {
  const only = (c: string) => reads(`permit (principal, action, resource) when { ${c} };`).intervals;

  it('collects the literals a Long is compared with, on either side, with every operator', () => {
    expect(
      only(
        '3 > context.tier && context.tier <= 5 && context.tier == -2 && 5 != context.tier && context.tier >= 3 && -2 < context.tier',
      ).context,
    ).toEqual(new Map([['tier', [-2n, 3n, 5n]]]));
    expect(only('resource.tier < 2 || principal has manager')).toEqual({
      ...NONE,
      resource: new Map([['tier', [2n]]]),
    });
  });

  it('gathers the literals of one attribute across policies and clauses', () => {
    const r = reads(
      'permit (principal, action, resource) when { context.now_epoch_s >= 100 } unless { context.now_epoch_s == 7 };\nforbid (principal, action, resource) when { context.now_epoch_s > 100 };',
    );
    expect(r.intervals.context).toEqual(new Map([['now_epoch_s', [7n, 100n]]]));
  });

  it('takes a one-step `has` as a presence test, which the key keeps', () => {
    expect(only('context has amount_micros && context.amount_micros > 5').context).toEqual(
      new Map([['amount_micros', [5n]]]),
    );
    // A longer path reads what the attribute holds.
    expect(only('context has amount_micros.x || context.amount_micros > 5').context.size).toBe(0);
  });

  it('keeps the exact value for any use but a comparison with a Long literal', () => {
    for (const use of [
      'context.tier + 1 > 3',
      'context.tier * 2 == 4',
      '-context.tier < 0',
      'context.tier > -(5)',
      'context.tier < resource.tier',
      'context.tier == context.tier',
      '[1, 2].contains(context.tier)',
      'context.tier in [1]',
      '{a: context.tier} == {a: 1}',
      '[context.tier] == [1]',
      '(if context.irreversible then context.tier else 0) > 1',
      'context.tier == "3"',
      'context.tier == true',
    ]) {
      // One plain comparison beside it does not make the attribute an interval.
      expect(only(`context.tier < 3 && (${use})`).context.has('tier'), use).toBe(false);
      expect(reads(`permit (principal, action, resource) when { ${use} };`).context).toContain('tier');
    }
  });

  it('keys no context attribute by interval when the context is used as a whole', () => {
    expect(only('context.tier < 3 && context != {}').context.size).toBe(0);
  });

  it('keeps strings and booleans out, whatever they are compared with', () => {
    expect(only('context.route == "brokered" && principal.kind != "agent" && resource.irreversible')).toEqual(
      NONE,
    );
  });

  it('reads literals beyond 2^53 exactly as beyond it, never as a rounded neighbour', () => {
    expect(
      only(
        'context.amount_micros < 9223372036854775807 && context.amount_micros > -9223372036854775808 && context.amount_micros != 9007199254740993 && context.amount_micros != 9007199254740991',
      ).context,
    ).toEqual(new Map([['amount_micros', [-(2n ** 53n), 9007199254740991n, 2n ** 53n]]]));
  });
});
