import { describe, expect, it } from 'vitest';
import { checkParseSchema, schemaToText } from '@cedar-policy/cedar-wasm/nodejs';
import { SvcError } from '../../../src/core/errors.js';
import { cedarSchema, normalizeActions, schemaName } from '../../../src/policy/schema.js';

describe('cedarSchema', () => {
  it('is a schema the engine parses, with one action per registered verb', () => {
    const schema = cedarSchema(['write', 'read', 'write', 'delete']);
    expect(checkParseSchema(schema)).toEqual({ type: 'success' });
    expect(Object.keys(schema['']!.actions)).toEqual(['delete', 'read', 'write']);
  });

  it('reads as the documented entity and context shape', () => {
    const answer = schemaToText(cedarSchema(['read']));
    if (answer.type !== 'success') throw new Error(JSON.stringify(answer));
    const text = answer.text.replace(/\s+/g, ' ');
    expect(text).toContain(
      'entity Actor = { kind: __cedar::String, manager?: __cedar::String, roles: Set<__cedar::String> }',
    );
    expect(text).toContain(
      'entity Capability = { custody: __cedar::String, irreversible: __cedar::Bool, tier: __cedar::Long }',
    );
    expect(text).toContain(
      'action "read" appliesTo { principal: [Actor], resource: [Capability], context: RequestContext }',
    );
    for (const field of ['task_id', 'tier', 'amount_micros', 'route', 'now_epoch_s', 'irreversible']) {
      expect(text).toMatch(new RegExp(`type RequestContext = \\{[^}]*\\b${field}\\b`));
    }
  });

  it('accepts an empty verb set and verbs that need quoting', () => {
    expect(checkParseSchema(cedarSchema([]))).toEqual({ type: 'success' });
    expect(checkParseSchema(cedarSchema(['say "hi"', 'naïve', 'a::b']))).toEqual({ type: 'success' });
  });

  it.each([[''], ['x'.repeat(65)], ['a\uD800']])('refuses the verb %j', (verb) => {
    expect(() => normalizeActions(['read', verb])).toThrow(SvcError);
  });
});

describe('schemaName', () => {
  it('depends on the verb set, not its order or repetition', () => {
    expect(schemaName(['read', 'write'])).toBe(schemaName(['write', 'read', 'read']));
    expect(schemaName(['read', 'write'])).not.toBe(schemaName(['read']));
    expect(schemaName(['read', 'write'])).not.toBe(schemaName(['read,write']));
  });
});
