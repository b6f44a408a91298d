import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { EXAMPLE_POLICY } from '../../../src/policy/example-policy.js';
import { validatePolicy } from '../../../src/policy/validation.js';
import type { PolicyDiagnostic } from '../../../src/policy/diagnostic.js';

const VERBS = ['read', 'write', 'delete'];

function errorsOf(text: string, actions = VERBS): PolicyDiagnostic[] {
  const result = validatePolicy(text, actions);
  if (result.ok) throw new Error('expected the policy to be refused');
  return result.errors;
}

describe('validatePolicy', () => {
  it('accepts the example policy for any registered verb set', () => {
    fc.assert(
      fc.property(fc.uniqueArray(fc.string({ minLength: 1, maxLength: 12 }), { maxLength: 6 }), (verbs) => {
        expect(validatePolicy(EXAMPLE_POLICY, verbs).ok).toBe(true);
      }),
      { numRuns: 30 },
    );
  });

  it('accepts an empty policy set', () => {
    expect(validatePolicy('', VERBS)).toEqual({ ok: true, warnings: [] });
  });

  it('places a syntax error on line 3 at the offending token', () => {
    const text = [
      '// tenant policy',
      'permit (principal, action, resource)',
      'when { context.tier < 3 ;',
      '',
    ].join('\n');
    const [first] = errorsOf(text);
    expect(first).toMatchObject({ line: 3, column: 25 });
    expect(first!.message).toContain('unexpected token `;`');
  });

  it('places a syntax error reported through a related error', () => {
    const errors = errorsOf('permit (principal, action, resource)\nwhen {\n  1 + };\n');
    expect(
      errors.some((e) => e.line === 3 && e.column === 7 && e.message.includes('unexpected token `}`')),
    ).toBe(true);
  });

  it('places a schema error on line 5 at the unknown attribute', () => {
    const text = [
      '@id("ok")',
      'permit (principal, action, resource) when { context.tier < 3 };',
      '',
      'permit (principal, action, resource)',
      'when { principal.knd == "agent" };',
    ].join('\n');
    const errors = errorsOf(text);
    expect(errors).toHaveLength(1);
    expect(errors[0]).toMatchObject({ line: 5, column: 8, policyId: 'policy1' });
    expect(errors[0]!.message).toContain('knd');
    expect(errors[0]!.help).toContain('kind');
  });

  it('counts columns in characters after non-ASCII text', () => {
    const text =
      '@reason("Überweisung über 10 €")\nforbid (principal, action, resource) when { context.nope };';
    expect(errorsOf(text)[0]).toMatchObject({ line: 2, column: 45 });
    const sameLine = '@reason("€€€") forbid (principal, action, resource) when { context.nope };';
    expect(errorsOf(sameLine)[0]).toMatchObject({ line: 1, column: sameLine.indexOf('context.nope') + 1 });
  });

  it('refuses a verb no capability registered', () => {
    const text =
      'permit (principal, action == Action::"read", resource);\npermit (principal, action == Action::"launch", resource);';
    const errors = errorsOf(text);
    expect(errors[0]).toMatchObject({ line: 2, column: 30, policyId: 'policy1' });
    expect(errors[0]!.message).toContain('unrecognized action `Action::"launch"`');
    expect(validatePolicy(text, [...VERBS, 'launch']).ok).toBe(true);
  });

  it('refuses reading the optional manager attribute without testing for it', () => {
    const errors = errorsOf('permit (principal, action, resource) when { principal.manager == "m" };');
    expect(errors[0]!.message).toContain('optional attribute `manager`');
    expect(
      validatePolicy(
        'permit (principal, action, resource) when { principal has manager && principal.manager == "m" };',
        VERBS,
      ).ok,
    ).toBe(true);
  });

  it('refuses values of the wrong type, such as a string amount', () => {
    const errors = errorsOf('forbid (principal, action, resource) when { context.amount_micros > "1000" };');
    expect(errors[0]!.line).toBe(1);
  });

  it('refuses a template and points at it', () => {
    const text =
      'permit (principal, action, resource);\n\npermit (principal == ?principal, action, resource);';
    const errors = errorsOf(text);
    expect(errors[0]).toMatchObject({ line: 3, column: 1 });
    expect(errors[0]!.message).toContain('template');
  });

  it('reports a policy that can never apply as a warning, not an error', () => {
    const result = validatePolicy('permit (principal, action, resource) when { context.tier < 3 };', []);
    expect(result.ok).toBe(true);
    expect(result.warnings.some((w) => w.message.includes('impossible'))).toBe(true);
  });
});
