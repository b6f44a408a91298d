/**
 * A sealed decision carries its policy step (question, answer, approval tier) when it reached
 * the policy, so a shadow policy can put the same question after the commit; a decision
 * refused before the policy carries none.
 */
import { describe, expect, it } from 'vitest';
import { admits } from '../../../src/core/constraints.js';
import { decision, type PipelineRules } from '../../../src/core/decision/pipeline.js';
import type { Sealed } from '../../../src/core/decision/sealed.js';
import { runSync } from '../../../src/core/use-case.js';
import { PolicyCache } from '../../../src/daemon/policy-cache.js';
import { bot, memoryOps, NOW, world, type MemoryWorld } from '../../helpers/decision-memory.js';
import { decisionRequest, type RequestSpec } from '../../helpers/decision-request.js';

function run(w: MemoryWorld, spec: RequestSpec): Extract<Sealed, { kind: 'sealed' }> {
  const rules: PipelineRules = { policy: new PolicyCache(), constraints: admits };
  const sealed = runSync(
    decision(decisionRequest(spec), bot, 'new', rules, () => NOW),
    memoryOps(w),
  );
  if (sealed.kind !== 'sealed') throw new Error(`not sealed: ${sealed.kind}`);
  return sealed;
}

describe('the policy step of a sealed decision', () => {
  it('is the question the policy was asked, its answer and the approval tier', () => {
    const w = world();
    w.policy = '@id("small") permit (principal, action, resource) when { context.amount_micros <= 5000000 };';
    const sealed = run(w, { amountUsd: 3 });
    expect(sealed.outcome).toBe('allowed');
    expect(sealed.policyStep).toEqual({
      question: {
        actor: { id: 'bot', kind: 'agent', roles: [], manager: 'alice' },
        capability: { id: 'crm.write', tier: 1, irreversible: false, custody: 'grant' },
        action: 'write',
        taskId: 't1',
        amountMicros: 3_000_000n,
        route: 'action',
        nowEpochS: Math.floor(NOW.getTime() / 1000),
      },
      allow: true,
      noPolicy: false,
      determining: ['small'],
      approvalTier: 3,
    });
  });

  it('is carried by a policy refusal and a deferral', () => {
    const w = world();
    w.policy = '@id("small") permit (principal, action, resource) when { context.amount_micros <= 5000000 };';
    const denied = run(w, { amountUsd: 6, step: 'big' });
    expect([denied.outcome, denied.code]).toEqual(['refused', 'policy_denied']);
    expect(denied.policyStep).toMatchObject({ allow: false, noPolicy: false, determining: [] });
    const deferred = run(w, { capability: 'pay.send', action: 'write', amountUsd: 2, step: 'pay' });
    expect(deferred.outcome).toBe('deferred');
    expect(deferred.policyStep).toMatchObject({ allow: true, approvalTier: 3 });
    expect(deferred.policyStep?.question.capability).toEqual({
      id: 'pay.send',
      tier: 4,
      irreversible: true,
      custody: 'grant',
    });
  });

  it('is absent where the decision was refused before the policy', () => {
    const sealed = run(world(), { capability: 'crm.export', action: 'write' });
    expect([sealed.outcome, sealed.code]).toEqual(['refused', 'not_permitted']);
    expect(sealed.policyStep).toBeUndefined();
  });
});
