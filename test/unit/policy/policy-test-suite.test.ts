/**
 * Parsing a policy test suite: a good one in YAML and in JSON, amounts read as written, and
 * a bad one refused with every problem named by file, line, case and field.
 */
import { describe, expect, it } from 'vitest';
import { parseSuite, SUITE_FILE } from '../../../src/policy/policy-test-suite.js';

const GOOD = `name: refunds
policy: policy.cedar
approval_tier: 5
principals:
  bot: { kind: agent, manager: alice }
  alice: { kind: human, roles: [approver] }
capabilities:
  pay.refund: { tier: 4, irreversible: true, actions: [refund], cost_usd: 25 }
cases:
  - name: small
    actor: bot
    capability: pay.refund
    action: refund
    amount_usd: 100.000001
    route: brokered
    task: t9
    time: 2026-03-01T09:00:00Z
    expect: deferred
  - actor: bot
    capability: pay.refund
    action: refund
    expect: { outcome: refused, code: policy_denied, reason: too much, determining: [limit] }
`;

describe('a policy test suite', () => {
  it('is read with every field, and defaults where a case names none', () => {
    const s = parseSuite(GOOD, 'refunds_test.yaml');
    expect(s).toMatchObject({ name: 'refunds', policy: 'policy.cedar', approvalTier: 5 });
    expect(s.principals.get('bot')).toEqual({ kind: 'agent', roles: [], manager: 'alice' });
    expect(s.principals.get('alice')).toEqual({ kind: 'human', roles: ['approver'], manager: null });
    expect(s.capabilities.get('pay.refund')).toEqual({
      tier: 4,
      irreversible: true,
      custody: 'grant',
      actions: ['refund'],
      costMicros: 25_000_000n,
    });
    const [small, second] = s.cases;
    expect(small).toMatchObject({
      index: 0,
      name: 'small',
      // as written, not through a double
      amountMicros: 100_000_001n,
      route: 'brokered',
      task: 't9',
      nowEpochS: Date.parse('2026-03-01T09:00:00Z') / 1000,
      expect: { outcome: 'deferred' },
    });
    expect(small!.at()).toBe('refunds_test.yaml:10:5');
    expect(second).toMatchObject({
      name: 'bot refund pay.refund',
      route: 'action',
      task: 'test-task',
      expect: { outcome: 'refused', code: 'policy_denied', reason: 'too much', determining: ['limit'] },
    });
    expect(second!.amountMicros).toBeUndefined();
    expect(second!.nowEpochS).toBeUndefined();
  });

  it('is read from JSON as well, and named after its file', () => {
    const json = JSON.stringify({
      cases: [{ actor: 'a', capability: 'c', action: 'read', expect: 'allowed' }],
    });
    const s = parseSuite(json, 'dir/limits_test.json');
    expect(s.name).toBe('limits');
    expect(s.cases[0]!.expect).toEqual({ outcome: 'allowed' });
  });

  it('is found by its name: _test before a YAML or JSON extension', () => {
    expect(['a_test.yaml', 'a_test.yml', 'a_test.json'].every((f) => SUITE_FILE.test(f))).toBe(true);
    expect(['a.yaml', 'a_test.txt', 'a-test.yaml', 'a_tests.yaml'].some((f) => SUITE_FILE.test(f))).toBe(
      false,
    );
  });

  it('is refused with every problem, each naming the file, line, case and field', () => {
    const bad = `principals:
  bot: { kind: robot }
  bob: { kind: agent, roles: [approver] }
cases:
  - name: over
    actor: bot
    capability: pay
    action: Pay
    colour: red
    expect: refused
  - actor: bot
    capability: pay
    action: pay
    expect: { outcome: allowed, code: policy_denied }
  - actor: bot
    capability: pay
    action: pay
    expect: { outcome: refused }
`;
    let reason = '';
    try {
      parseSuite(bad, 'bad_test.yaml');
    } catch (err) {
      reason = (err as { reason: string }).reason;
      expect(err).toMatchObject({ code: 'invalid_request', field: 'suite' });
    }
    expect(reason.split('\n')).toEqual([
      'bad_test.yaml is not a valid policy test suite, 7 errors:',
      expect.stringMatching(/^ {2}bad_test\.yaml:2:16: principals\.bot\.kind: .*"agent"\|"human"\|"service"/),
      '  bad_test.yaml:3:30: principals.bob.roles: only human principals carry roles',
      '  bad_test.yaml:8:13: cases[0] ("over").action: a verb of lowercase letters',
      '  bad_test.yaml:9:5: cases[0] ("over").colour: unknown field',
      '  bad_test.yaml:10:13: cases[0] ("over").expect.code: required with outcome refused: one of policy_denied, no_policy',
      '  bad_test.yaml:14:39: cases[1].expect.code: only with outcome refused (this case expects allowed)',
      '  bad_test.yaml:18:13: cases[2].expect.code: required with outcome refused: one of policy_denied, no_policy',
    ]);
  });

  it('refuses an amount it cannot read exactly, and a file that is not YAML', () => {
    const amount = `cases:
  - { actor: a, capability: c, action: read, amount_usd: 1.0000001, expect: allowed }
`;
    expect(() => parseSuite(amount, 'a_test.yaml')).toThrow(
      /a_test\.yaml:2:58: cases\[0\]\.amount_usd: .*6 decimal places/,
    );
    expect(() => parseSuite('cases: [', 'b_test.yaml')).toThrow(/b_test\.yaml:1:\d+: /);
    expect(() => parseSuite('cases: []', 'c_test.yaml')).toThrow(/c_test\.yaml:1:8: cases: /);
  });
});
