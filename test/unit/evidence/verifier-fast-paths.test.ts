import fc from 'fast-check';
import { fullFormats } from 'ajv-formats/dist/formats.js';
import type { FormatDefinition } from 'ajv/dist/2020.js';
import { describe, expect, it } from 'vitest';
import { cjson } from '../../../src/evidence/cjson.js';
import { entryPreimage } from '../../../src/evidence/entry.js';
import { validateLineOfKind } from '../../../src/evidence/schema-validator.js';
import { fastDateTime, regExp } from '../../../src/evidence/schema-speed.js';
import { preimageOfCanonicalEntry } from '../../../src/evidence/verify/entry-facts.js';
import { FindingSink } from '../../../src/evidence/verify/findings.js';
import { decodeLine } from '../../../src/evidence/verify/line-decoder.js';

/**
 * The verifier's fast paths must decide exactly what the slow definitions decide: each is
 * checked against its definition on generated input, tricky strings included.
 */

// Strings that would fool a careless text cut: quotes, backslashes, markers, non-ASCII.
const tricky = fc.oneof(
  fc.string({ unit: 'grapheme', maxLength: 20 }),
  fc.constantFrom(
    '',
    '"',
    '\\',
    '\\"',
    ',"leaf":"',
    ',"chain_hash":"',
    ',"type":"entry"}',
    '}',
    'é€😀',
    '\u0000\u001f',
  ),
);
const hex64 = fc.uint8Array({ minLength: 32, maxLength: 32 }).map((b) => Buffer.from(b).toString('hex'));
const time = fc
  .date({ min: new Date(0), max: new Date(Date.UTC(2200, 0)), noInvalidDate: true })
  .map((d) => d.toISOString());
const tombstone = fc.record(
  {
    from_sequence: fc.nat(),
    to_sequence: fc.nat(),
    reason: tricky,
    authorised_by: tricky,
    policy_id: tricky,
    record_count: fc.nat(),
    removed_at: time,
  },
  { requiredKeys: ['from_sequence', 'to_sequence', 'reason', 'authorised_by', 'removed_at'] },
);
const entry = fc.record(
  {
    type: fc.constant('entry'),
    tenant_id: tricky.filter((s) => s.length > 0),
    sequence: fc.nat(),
    record_hash: hex64,
    intent_id: tricky,
    actor_id: tricky,
    capability: tricky,
    tier: fc.integer({ min: -5, max: 9 }),
    allowed: fc.boolean(),
    grant_id: tricky,
    amount_usd: fc.oneof(
      fc.constant(0),
      fc.integer({ min: 1, max: 10 ** 12 }).map((m) => m / 1e6),
    ),
    occurred_at: time,
    linked_at: time,
    tombstone,
    chain_hash: hex64,
    leaf: hex64,
  },
  {
    requiredKeys: [
      'type',
      'tenant_id',
      'sequence',
      'record_hash',
      'intent_id',
      'actor_id',
      'capability',
      'tier',
      'allowed',
      'grant_id',
      'amount_usd',
      'occurred_at',
      'linked_at',
      'chain_hash',
      'leaf',
    ],
  },
);

const raw = (text: string) => ({
  number: 1,
  bytes: new Uint8Array(Buffer.from(text)),
  length: Buffer.byteLength(text),
  terminated: true,
  tooLong: false,
});

describe('the preimage cut out of a canonical entry line', () => {
  it('equals CJSON of the entry without type, chain_hash and leaf, for any schema-valid entry', () => {
    fc.assert(
      fc.property(entry, (e) => {
        expect(validateLineOfKind('entry', e).valid).toBe(true);
        expect(preimageOfCanonicalEntry(cjson(e))).toBe(entryPreimage(e));
      }),
      { numRuns: 500 },
    );
  });

  it('declines text it cannot vouch for, leaving it to the serialiser', () => {
    expect(preimageOfCanonicalEntry('{"a":1}')).toBeUndefined();
    expect(preimageOfCanonicalEntry('{"chain_hash":"x","type":"entry"}')).toBeUndefined();
  });
});

describe('the canonical-form check', () => {
  const reference = (text: string): boolean => {
    try {
      return cjson(JSON.parse(text)) === text;
    } catch {
      return false;
    }
  };

  it('calls a line canonical exactly when it is CJSON of its parse, whatever its key order or spelling', () => {
    const spellings = fc
      .jsonValue()
      .chain((v) =>
        fc.constantFrom(
          JSON.stringify({ v }),
          cjson({ v, '10': 1, '9': 2 }),
          JSON.stringify({ '10': 1, '9': 2, v }),
          cjson({ b: v, a: [v] }),
          JSON.stringify({ b: v, a: [v] }, null, 1).replaceAll('\n', ''),
        ),
      );
    fc.assert(
      fc.property(spellings, (text) => {
        const line = decodeLine(raw(text), new FindingSink(10));
        expect(line?.canonical).toBe(reference(text));
      }),
      { numRuns: 1000 },
    );
  });

  it('still names lone surrogates and numbers beyond a double', () => {
    const sink = new FindingSink(10);
    expect(decodeLine(raw('{"a":"\\ud800"}'), sink)?.canonical).toBe(false);
    expect(decodeLine(raw('{"a":1e400}'), sink)?.canonical).toBe(false);
    expect(sink.findings.map((f) => f.code)).toEqual(['lone_surrogate', 'non_canonical_line']);
  });
});

describe('the schema fast checks', () => {
  const library = fullFormats['date-time'] as FormatDefinition<string>;
  const slow = library.validate as (s: string) => boolean;
  const fast = fastDateTime(library).validate as (s: string) => boolean;

  it('date-time agrees with ajv-formats on times, near-times and edge dates', () => {
    const edges = [
      '2024-02-29T00:00:00.000Z',
      '2023-02-29T00:00:00.000Z',
      '2100-02-29T00:00:00.000Z',
      '2000-02-29T00:00:00.000Z',
      '2026-13-01T00:00:00.000Z',
      '2026-04-31T00:00:00.000Z',
      '2026-06-30T23:59:60.000Z',
      '2026-06-30T24:00:00.000Z',
      '2026-06-30T23:60:00.000Z',
      '2026-06-30T12:00:00.000z',
      '2026-06-30t12:00:00.000Z',
      '2026-06-30T12:00:00Z',
      '2026-06-30T12:00:00.000+01:00',
      '2026-00-10T12:00:00.000Z',
      '2026-01-00T12:00:00.000Z',
    ];
    for (const s of edges) expect(fast(s), s).toBe(slow(s));
    const mutate = fc
      .tuple(time, fc.nat({ max: 23 }), fc.constantFrom(...'0123456789-:.TZtz +'))
      .map(([t, at, c]) => t.slice(0, at) + c + t.slice(at + 1));
    fc.assert(
      fc.property(fc.oneof(time, mutate, fc.string()), (s) => {
        expect(fast(s)).toBe(slow(s));
      }),
      { numRuns: 3000 },
    );
  });

  it('the hash pattern agrees with its RegExp', () => {
    const rx = new RegExp('^[0-9a-f]{64}$');
    const fastHex = regExp('^[0-9a-f]{64}$', '');
    const near = hex64.chain((h) =>
      fc
        .tuple(fc.nat({ max: 64 }), fc.string({ maxLength: 1 }))
        .map(([at, c]) => h.slice(0, at) + c + h.slice(at + 1)),
    );
    fc.assert(
      fc.property(fc.oneof(hex64, near, fc.string()), (s) => {
        expect(fastHex.test(s)).toBe(rx.test(s));
      }),
      { numRuns: 3000 },
    );
  });
});
