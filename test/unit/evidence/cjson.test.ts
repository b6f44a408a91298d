import { readdirSync, readFileSync } from 'node:fs';
import canonicalize from 'canonicalize';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { cjson, findCanonicalProblem } from '../../../src/evidence/cjson.js';
import { vectorPath } from './vector-paths.js';

const JCS_INPUTS = readdirSync(vectorPath('jcs/input')).filter((name) => name.endsWith('.json'));

describe('cjson: RFC 8785 (cyberphone test data)', () => {
  it('has the six upstream cases', () => {
    expect(JCS_INPUTS.sort()).toEqual([
      'arrays.json',
      'french.json',
      'structures.json',
      'unicode.json',
      'values.json',
      'weird.json',
    ]);
  });

  it.each(JCS_INPUTS)('%s canonicalises to the expected output bytes', (name) => {
    const input: unknown = JSON.parse(readFileSync(vectorPath(`jcs/input/${name}`), 'utf8'));
    const expected = readFileSync(vectorPath(`jcs/output/${name}`));
    const hex = readFileSync(vectorPath(`jcs/outhex/${name.replace('.json', '.txt')}`), 'utf8')
      .trim()
      .split(/\s+/)
      .join('');
    const actual = Buffer.from(cjson(input), 'utf8');
    expect(actual.equals(expected)).toBe(true);
    expect(actual.toString('hex')).toBe(hex);
  });
});

describe('cjson: what it refuses', () => {
  it('refuses lone surrogates in values and in keys', () => {
    expect(() => cjson('\ud800')).toThrow(TypeError);
    expect(() => cjson({ a: ['ok', 'x\udc00y'] })).toThrow(TypeError);
    expect(() => cjson({ '\udbff': 1 })).toThrow(TypeError);
    expect(findCanonicalProblem({ a: ['ok', 'x\udc00y'] })).toEqual({ kind: 'lone_surrogate', path: '/a/1' });
    // A proper pair is fine and is written as the character itself.
    expect(cjson('\ud83d\ude00')).toBe('"\u{1f600}"');
  });

  it('refuses NaN and the infinities', () => {
    expect(() => cjson(NaN)).toThrow(RangeError);
    expect(() => cjson({ n: Infinity })).toThrow(RangeError);
    expect(() => cjson([-Infinity])).toThrow(RangeError);
    expect(findCanonicalProblem({ n: [1, NaN] })).toEqual({ kind: 'non_finite_number', path: '/n/1' });
  });

  it('refuses values JSON has no form for, instead of dropping or converting them', () => {
    class Point {
      x = 1;
    }
    const sparse = [1, , 3]; // eslint-disable-line no-sparse-arrays
    for (const value of [
      undefined,
      () => 1,
      10n,
      Symbol('s'),
      new Date(0),
      new Map(),
      new Point(),
      sparse,
      { a: undefined },
    ]) {
      expect(() => cjson(value)).toThrow(TypeError);
    }
    expect(() => cjson(Object.assign({}, { [Symbol('k')]: 1 }))).toThrow(TypeError);
  });

  it('refuses cycles', () => {
    const a: Record<string, unknown> = {};
    a.self = a;
    expect(() => cjson(a)).toThrow(TypeError);
    expect(findCanonicalProblem(a)).toEqual({ kind: 'cycle', path: '/self' });
  });

  it('accepts objects without a prototype and shared (non-cyclic) references', () => {
    const shared = { z: 1 };
    const bare = Object.assign(Object.create(null) as object, { b: shared, a: shared });
    expect(cjson(bare)).toBe('{"a":{"z":1},"b":{"z":1}}');
  });
});

describe('cjson: RFC 8785 details the negative cases rely on', () => {
  it('writes -0 as 0, so a line holding -0 is not canonical', () => {
    expect(cjson(-0)).toBe('0');
    expect(cjson({ a: -0 })).toBe('{"a":0}');
    const line = '{"a":-0}';
    expect(cjson(JSON.parse(line))).not.toBe(line);
  });

  it('makes duplicate keys visible: the canonical form of a parsed line drops one of them', () => {
    const line = '{"a":1,"a":2}';
    expect(cjson(JSON.parse(line))).toBe('{"a":2}');
  });

  it('sorts keys by UTF-16 code units, not by code points', () => {
    // As code points U+E000 comes first; as UTF-16 units U+1F600 (0xD83D 0xDE00) does.
    expect(cjson({ '\ue000': 1, '\u{1f600}': 2, a: 3 })).toBe('{"a":3,"\u{1f600}":2,"\ue000":1}');
  });

  it('writes numbers in the ECMAScript shortest form, amounts without exponent', () => {
    expect(cjson([0.000001, 1e21, 1e-7, 250, 0.0125, 9007199254740991])).toBe(
      '[0.000001,1e+21,1e-7,250,0.0125,9007199254740991]',
    );
  });

  it('escapes only what RFC 8785 escapes', () => {
    expect(cjson('\u0000\u001f"\\/\u007f\u2028')).toBe('"\\u0000\\u001f\\"\\\\/\u007f\u2028"');
  });

  it('is idempotent over parse for arbitrary JSON', () => {
    fc.assert(
      fc.property(fc.jsonValue(), (value) => {
        const text = cjson(value);
        expect(cjson(JSON.parse(text))).toBe(text);
      }),
    );
  });
});

describe('cjson: the single-pass path for plain values', () => {
  // Plain JSON data with every string shape (lone surrogates, -0, __proto__ keys included).
  const anyString = fc.string({ unit: 'binary' });
  const plain = fc.letrec((tie) => ({
    value: fc.oneof(
      { depthSize: 'small' },
      fc.constantFrom(null, true, false, -0, 0.1, 1e21, 5e-7, Number.MAX_SAFE_INTEGER),
      fc.double({ noNaN: true, noDefaultInfinity: true }),
      anyString,
      fc.array(tie('value'), { maxLength: 5 }),
      fc.dictionary(fc.oneof(anyString, fc.constant('__proto__')), tie('value'), { maxKeys: 6 }),
    ),
  })).value;

  it('writes exactly what the checked path (canonicalize) writes, and refuses exactly what it refuses', () => {
    fc.assert(
      fc.property(plain, (value) => {
        const problem = findCanonicalProblem(value);
        if (problem) expect(() => cjson(value)).toThrow(/CJSON/);
        else expect(cjson(value)).toBe(canonicalize(value));
      }),
      { numRuns: 2_000 },
    );
  });

  it('writes what canonicalize writes for values whose keys already stand in sorted order (the native pass)', () => {
    const sortDeep = (v: unknown): unknown => {
      if (Array.isArray(v)) return v.map(sortDeep);
      if (v === null || typeof v !== 'object') return v;
      const keys = Object.keys(v).sort();
      const out: Record<string, unknown> = {};
      for (const k of keys)
        Object.defineProperty(out, k, {
          value: sortDeep((v as Record<string, unknown>)[k]),
          enumerable: true,
          writable: true,
          configurable: true,
        });
      return out;
    };
    fc.assert(
      fc.property(plain, (value) => {
        const sorted = sortDeep(value);
        const problem = findCanonicalProblem(sorted);
        if (problem) expect(() => cjson(sorted)).toThrow(/CJSON/);
        else expect(cjson(sorted)).toBe(canonicalize(value));
      }),
      { numRuns: 2_000 },
    );
    // Integer-like keys: the engine orders them numerically, RFC 8785 by UTF-16 units.
    expect(cjson({ '9': 1, '10': 2, a: 3 })).toBe('{"10":2,"9":1,"a":3}');
  });

  it('never calls a toJSON added to the shared prototypes', () => {
    const protos = [Object.prototype, Array.prototype] as { toJSON?: unknown }[];
    for (const proto of protos) {
      proto.toJSON = () => 'replaced';
      try {
        expect(cjson({ a: [1, { b: 2 }] })).toBe('{"a":[1,{"b":2}]}');
      } finally {
        delete proto.toJSON;
      }
    }
  });

  it('still names the problem of a value nested deeper than the single pass goes', () => {
    let deep: unknown = 'ok';
    for (let i = 0; i < 100; i++) deep = [deep];
    expect(cjson(deep)).toBe(`${'['.repeat(100)}"ok"${']'.repeat(100)}`);
    let bad: unknown = '\uD800';
    for (let i = 0; i < 100; i++) bad = { k: bad };
    expect(() => cjson(bad)).toThrow(/lone surrogate at (\/k){100}$/);
  });
});
