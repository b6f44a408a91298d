import { describe, expect, it } from 'vitest';
import { differenceJson } from '../../../src/api/policy-difference-view.js';
import { renderDifference, verdictText } from '../../../src/cli/difference-render.js';
import { summarise, type PolicyDifference } from '../../../src/policy/policy-difference.js';
import { inputsOf } from '../../../src/policy/policy-inputs.js';
import { request } from '../policy/fixtures.js';

const refused = { outcome: 'refused' as const, code: 'policy_denied' as const, determining: [] };
const allowed = { outcome: 'allowed' as const, determining: ['small'] };

function difference(o: {
  at: string;
  actor?: string;
  micros?: bigint;
  candidate?: PolicyDifference['candidate'];
}): PolicyDifference {
  const base = request({ amountMicros: o.micros ?? 250_000_000n });
  return {
    intentId: `int-${o.at}`,
    at: o.at,
    inputs: inputsOf({ ...base, actor: { ...base.actor, id: o.actor ?? 'agent-1' } }, 3),
    current: allowed,
    candidate: o.candidate ?? refused,
  };
}

const report = summarise(10, [
  difference({ at: '2026-01-01T00:00:02Z', actor: 'agent-2', micros: 1_500_000n }),
  difference({ at: '2026-01-01T00:00:01Z' }),
  difference({
    at: '2026-01-01T00:00:03Z',
    candidate: { outcome: 'deferred', determining: ['big'] },
  }),
]);

describe('difference report rendering', () => {
  it('gives the JSON shape in snake_case with every key present', () => {
    const json = differenceJson(report);
    expect(json).toMatchObject({
      evaluated: 10,
      differing: 3,
      to_approval: 1,
      by_capability: [{ capability: 'crm.contacts', count: 3 }],
      by_actor: [
        { actor: 'agent-1', count: 2 },
        { actor: 'agent-2', count: 1 },
      ],
    });
    expect(json.by_pair.map((p) => [p.pair, p.count])).toEqual([
      ['allowed->refused', 2],
      ['allowed->deferred', 1],
    ]);
    expect(json.by_pair[0]!.examples[0]).toEqual({
      intent_id: 'int-2026-01-01T00:00:01Z',
      seq: null,
      at: '2026-01-01T00:00:01Z',
      capability: 'crm.contacts',
      actor: 'agent-1',
      action: 'read',
      task_id: 'task-1',
      route: 'action',
      amount_usd: 250,
      current: { outcome: 'allowed', code: null, determining: ['small'] },
      candidate: { outcome: 'refused', code: 'policy_denied', determining: [] },
    });
    expect(json.by_pair[0]!.examples[1]!.amount_usd).toBe(1.5);
  });

  it('prints totals, each pair with its examples, and the counts', () => {
    const text = renderDifference(report);
    const lines = text.split('\n');
    expect(lines[0]).toBe('Compared 10 decisions: 3 would change, 1 would go to approval.');
    expect(lines).toContain('allowed -> refused: 2');
    expect(lines).toContain('allowed -> deferred: 1');
    expect(
      lines.some((l) =>
        /2026-01-01T00:00:02Z\s+crm\.contacts\s+agent-2\s+read\s+1\.5\s+allowed \[small\]\s+refused policy_denied \[\]/.test(
          l,
        ),
      ),
    ).toBe(true);
    expect(lines).toContain('By capability:');
    expect(lines.some((l) => /^\s+agent-1\s+2$/.test(l))).toBe(true);
    // the first pair's examples come before the second pair's heading
    expect(text.indexOf('agent-2')).toBeLessThan(text.indexOf('allowed -> deferred'));
  });

  it('prints only the totals when nothing differs', () => {
    expect(renderDifference(summarise(1, []))).toBe(
      'Compared 1 decision: 0 would change, 0 would go to approval.\n',
    );
  });

  it('escapes control characters an agent or an author chose', () => {
    const d = difference({ at: '2026-01-01T00:00:01Z', actor: 'evil\u001b[2Jagent' });
    const text = renderDifference(summarise(1, [d]));
    expect(text).not.toContain('\u001b');
    expect(text).toContain('evil\\u001b[2Jagent');
    expect(verdictText({ outcome: 'refused', code: 'no_policy', determining: [] })).toBe(
      'refused no_policy []',
    );
  });
});
