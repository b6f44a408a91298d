import { createHash } from 'node:crypto';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  actionRequestDigest,
  requestDigest,
  type ActionRequestFields,
} from '../../../src/core/decision/request.js';
import { cjson } from '../../../src/evidence/cjson.js';
import { encodeHex, encodeUtf8 } from '../../../src/evidence/encoding.js';
import { sha256 } from '../../../src/evidence/node-crypto.js';

/** The definition in semantics.md, spelled out with the evidence primitives. */
const reference = (body: Record<string, unknown>) => {
  const { correlation_id: _c, trace_id: _t, ...identity } = body;
  return encodeHex(sha256(encodeUtf8(cjson(identity))));
};

const body = fc.record(
  {
    tenant_id: fc.string(),
    actor_id: fc.string({ unit: 'grapheme' }),
    capability: fc.string({ unit: 'binary' }),
    action: fc.string(),
    task_id: fc.string(),
    effect_key_step: fc.string(),
    amount_usd: fc.double({ noNaN: true, noDefaultInfinity: true }),
    intent: fc.string({ unit: 'grapheme' }),
    params: fc.dictionary(fc.string({ unit: 'grapheme' }), fc.jsonValue({ maxDepth: 4 })),
    correlation_id: fc.string(),
    trace_id: fc.string(),
  },
  { requiredKeys: [] },
);

describe('requestDigest', () => {
  it('is hex(SHA-256(CJSON(body without correlation fields))) for any body', () => {
    fc.assert(
      fc.property(body, (b) => {
        expect(requestDigest(b)).toBe(reference(b));
      }),
      { numRuns: 500 },
    );
  });

  it('matches a digest computed by hand from the canonical text', () => {
    const b = { task_id: 'q3', amount_usd: 1.5, capability: 'notes.read', trace_id: 'x', intent: 'é' };
    const text = '{"amount_usd":1.5,"capability":"notes.read","intent":"é","task_id":"q3"}';
    expect(requestDigest(b)).toBe(createHash('sha256').update(Buffer.from(text, 'utf8')).digest('hex'));
  });

  it('ignores the correlation fields and the member order', () => {
    const a = requestDigest({ a: 1, b: 'x', correlation_id: 'c1' });
    expect(requestDigest({ b: 'x', a: 1, trace_id: 't2' })).toBe(a);
    expect(requestDigest({ b: 'y', a: 1 })).not.toBe(a);
  });

  it('refuses a lone surrogate instead of hashing a replacement character', () => {
    expect(() => requestDigest({ intent: 'a\uD800b' })).toThrow(TypeError);
  });
});

const anyText = fc.oneof(fc.string(), fc.string({ unit: 'binary' }), fc.constantFrom('\uD800', 'a\uDC00'));
const wire = fc.record(
  {
    tenant_id: anyText,
    actor_id: anyText,
    capability: anyText,
    action: anyText,
    task_id: anyText,
    effect_key_step: anyText,
    amount_usd: fc.oneof(fc.double(), fc.constant(undefined), fc.string()),
    intent: fc.oneof(anyText, fc.integer()),
    params: fc.dictionary(anyText, fc.jsonValue({ maxDepth: 3 })),
    correlation_id: anyText,
    trace_id: anyText,
    extra: fc.jsonValue({ maxDepth: 1 }),
  },
  { requiredKeys: ['tenant_id', 'actor_id', 'capability', 'action', 'task_id', 'effect_key_step'] },
);

const result = (f: () => string) => {
  try {
    return f();
  } catch (err) {
    return (err as Error).constructor.name;
  }
};

describe('actionRequestDigest', () => {
  it('is requestDigest for any body, expected or not (or throws as it does)', () => {
    fc.assert(
      fc.property(wire, (b) => {
        const fields = b as unknown as ActionRequestFields;
        expect(result(() => actionRequestDigest(fields))).toBe(result(() => requestDigest(b)));
      }),
      { numRuns: 3000 },
    );
  });
});
