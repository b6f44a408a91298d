import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { isSvcError } from '../../../src/core/errors.js';
import { MAX_JSON_DEPTH, parseJsonText } from '../../../src/core/json-text.js';

const bytes = (s: string) => Buffer.from(s, 'utf8');
const refusal = (s: string | Buffer) => {
  try {
    parseJsonText(typeof s === 'string' ? bytes(s) : s);
  } catch (err) {
    if (isSvcError(err)) return { field: err.field, reason: err.reason };
    throw err;
  }
  return undefined;
};

describe('parseJsonText', () => {
  it('parses what JSON.parse parses when it is I-JSON within the depth bound', () => {
    fc.assert(
      fc.property(fc.jsonValue({ maxDepth: 8, noUnicodeString: false }), (v) => {
        const text = JSON.stringify(v);
        expect(parseJsonText(bytes(text))).toEqual(JSON.parse(text));
      }),
      { seed: 104, numRuns: 300 },
    );
  });

  it('bounds depth without recursion, naming the path where the bound was crossed', () => {
    expect(refusal('['.repeat(1_000_000))).toEqual({
      field: Array(MAX_JSON_DEPTH).fill('0').join('.'),
      reason: expect.stringMatching(/: expected JSON nested at most 32 levels deep$/),
    });
    expect(refusal(`{"a":{"b":${'{"c":'.repeat(40)}1${'}'.repeat(42)}`)?.field).toMatch(/^a\.b\.c\.c/);
    expect(refusal(`${'['.repeat(MAX_JSON_DEPTH)}${']'.repeat(MAX_JSON_DEPTH)}`)).toBeUndefined();
  });

  it('refuses non-finite numbers by path, and not numbers that only look large', () => {
    expect(refusal('1e309')).toMatchObject({ field: 'body' });
    expect(refusal('{"x":[0,{"y":-1E400}]}')).toMatchObject({ field: 'x.1.y' });
    expect(refusal('{"x":"1e309"}')).toBeUndefined();
    expect(refusal('{"x":1.7976931348623157e308,"y":5e-400}')).toBeUndefined();
  });

  it('refuses duplicate keys per object, and keys are compared decoded', () => {
    expect(refusal('{"a":1,"b":{"a":1},"\\u0061":2}')).toMatchObject({ field: 'a' });
    expect(refusal('[{"a":1},{"a":1}]')).toBeUndefined();
    expect(refusal('{"a":"\\",\\"a\\":","b":1}')).toBeUndefined();
  });

  it('refuses invalid UTF-8, empty bodies, bad JSON without echoing it', () => {
    expect(refusal(Buffer.from([0x22, 0xed, 0xa0, 0x80, 0x22]))?.reason).toMatch(/UTF-8/);
    expect(refusal('  ')?.reason).toMatch(/empty body/);
    const bad = refusal('{"secret-looking": tru}');
    expect(bad?.field).toBe('body');
    expect(bad?.reason).not.toContain('secret-looking');
  });

  it('refuses prototype-polluting member names', () => {
    expect(refusal('{"__proto__":{}}')).toMatchObject({ field: '__proto__' });
    expect(refusal('{"a":{"constructor":{"prototype":1}}}')).toMatchObject({
      field: 'a.constructor.prototype',
    });
    expect(refusal('{"constructor":1,"prototype":1}')).toBeUndefined();
  });
});
