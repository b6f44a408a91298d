/**
 * The bodies a decision records of its policy step are the fixed-order JSON of the actor's and
 * the capability's attributes and of the determining policies, whether or not the last decision
 * had the same ones (the builder hands back the last body while the attributes are equal).
 */
import { describe, expect, it } from 'vitest';
import { recordedInputs } from '../../../src/core/decision/recorded-inputs.js';
import type { PolicyStep } from '../../../src/core/decision/outcome.js';

function step(
  over: { roles?: string[]; manager?: string | null; tier?: number; determining?: string[] } = {},
): PolicyStep {
  return {
    question: {
      actor: { id: 'bot', kind: 'agent', roles: over.roles ?? ['reader'], manager: over.manager ?? 'alice' },
      capability: { id: 'crm.write', tier: over.tier ?? 1, irreversible: false, custody: 'grant' },
      action: 'write',
      taskId: 't1',
      amountMicros: 3_000_000n,
      route: 'action',
      nowEpochS: 1_800_000_000,
    },
    allow: true,
    noPolicy: false,
    determining: over.determining ?? ['small'],
    approvalTier: 2,
  };
}

const expected = (s: PolicyStep) => ({
  actor: JSON.stringify({
    id: s.question.actor.id,
    kind: s.question.actor.kind,
    manager: s.question.actor.manager,
    roles: s.question.actor.roles,
  }),
  capability: JSON.stringify({
    custody: s.question.capability.custody,
    id: s.question.capability.id,
    irreversible: s.question.capability.irreversible,
    tier: s.question.capability.tier,
  }),
  determining: JSON.stringify(s.determining),
});

describe('recorded policy inputs', () => {
  it('write each body in its fixed key order', () => {
    const s = step();
    expect(recordedInputs(s, 7)).toMatchObject({
      policyVersion: 7,
      actor: '{"id":"bot","kind":"agent","manager":"alice","roles":["reader"]}',
      capability: '{"custody":"grant","id":"crm.write","irreversible":false,"tier":1}',
      determining: '["small"]',
      action: 'write',
      amountMicros: 3_000_000n,
      brokered: false,
      nowEpochS: 1_800_000_000,
      approvalTier: 2,
      allow: true,
      noPolicy: false,
    });
  });

  it('give the body of the attributes asked, in any sequence of steps', () => {
    const steps = [
      step(),
      step(),
      step({ roles: ['reader', 'writer'] }),
      step({ roles: ['reader'] }),
      step({ manager: null }),
      step({ tier: 3 }),
      step({ determining: [] }),
      step({ determining: ['small', 'large'] }),
      step({ determining: ['large', 'small'] }),
      step(),
    ];
    for (const s of steps) expect(recordedInputs(s, 1)).toMatchObject(expected(s));
  });

  it('see a change made to the caller’s own arrays after the last step', () => {
    const s = step({ roles: ['reader'], determining: ['small'] });
    expect(recordedInputs(s, 1).actor).toContain('"roles":["reader"]');
    (s.question.actor.roles as string[]).push('admin');
    s.determining.push('large');
    const again = recordedInputs(s, 1);
    expect(again.actor).toContain('"roles":["reader","admin"]');
    expect(again.determining).toBe('["small","large"]');
  });
});
