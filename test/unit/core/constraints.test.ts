import { describe, expect, it } from 'vitest';
import { admits, type ExecutionPlan } from '../../../src/core/constraints.js';

const now = new Date('2026-06-15T12:00:00.000Z');
const q = { capability: 'crm.read', actorId: 'bot', amountMicros: 2_000_000n, now };
const none = { count: 0, totalMicros: 0n };

describe('admits (execution constraints, decision step 8)', () => {
  it('an empty plan admits anything', () => {
    expect(admits({}, { count: 10_000, totalMicros: 10n ** 15n }, q)).toEqual({ ok: true });
  });

  it('refuses outside the window, with when to come back', () => {
    const plan: ExecutionPlan = {
      not_before: '2026-06-16T00:00:00.000Z',
      not_after: '2026-06-20T00:00:00.000Z',
    };
    expect(admits(plan, none, q)).toMatchObject({
      ok: false,
      remedy: expect.stringContaining('2026-06-16T00:00:00.000Z'),
    });
    expect(admits(plan, none, { ...q, now: new Date('2026-06-16T00:00:00.000Z') })).toEqual({ ok: true });
    // not_after is exclusive
    expect(admits(plan, none, { ...q, now: new Date('2026-06-20T00:00:00.000Z') })).toMatchObject({
      ok: false,
      reason: expect.stringMatching(/closed/),
    });
  });

  it('refuses actors and capabilities the plan does not name, naming the ones it does', () => {
    expect(admits({ actors: ['bot2'] }, none, q)).toMatchObject({
      ok: false,
      remedy: 'only bot2 may act in this task',
    });
    expect(admits({ capabilities: ['crm.write', 'mail.send'] }, none, q)).toMatchObject({
      ok: false,
      remedy: 'use one of: crm.write, mail.send',
    });
    expect(admits({ actors: ['bot'], capabilities: ['crm.read'] }, none, q)).toEqual({ ok: true });
  });

  it('bounds one action, the count and the total, exactly in micro-dollars', () => {
    expect(admits({ max_amount_usd_per_action: 2 }, none, q)).toEqual({ ok: true });
    expect(admits({ max_amount_usd_per_action: 1.999999 }, none, q)).toMatchObject({
      ok: false,
      remedy: 'lower amount_usd to at most 1.999999',
    });
    expect(admits({ max_actions: 3 }, { count: 2, totalMicros: 0n }, q)).toEqual({ ok: true });
    expect(admits({ max_actions: 3 }, { count: 3, totalMicros: 0n }, q)).toMatchObject({ ok: false });
    // 0.1 + 0.2 in floating point is not 0.3; in micros it is
    expect(
      admits({ max_total_usd: 0.3 }, { count: 1, totalMicros: 100_000n }, { ...q, amountMicros: 200_000n }),
    ).toEqual({
      ok: true,
    });
    expect(admits({ max_total_usd: 10 }, { count: 4, totalMicros: 9_000_000n }, q)).toMatchObject({
      ok: false,
      remedy: 'lower amount_usd to at most 1',
    });
    expect(admits({ max_total_usd: 10 }, { count: 4, totalMicros: 10_000_000n }, q)).toMatchObject({
      ok: false,
      remedy: expect.stringMatching(/new root task/),
    });
  });

  it('fails closed on a stored plan that does not read as one', () => {
    for (const bad of [
      null,
      'plan',
      [],
      { actors: 'bot' },
      { max_total_usd: -1 },
      { max_total_usd: '5' },
      { max_actions: 1.5 },
      { not_after: 'soon' },
    ]) {
      expect(admits(bad, none, q), JSON.stringify(bad)).toMatchObject({
        ok: false,
        reason: expect.stringMatching(/cannot be read/),
      });
    }
  });
});
