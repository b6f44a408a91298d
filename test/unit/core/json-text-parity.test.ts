import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { isSvcError } from '../../../src/core/errors.js';
import { parseJsonText } from '../../../src/core/json-text.js';
import { referenceParseJsonText } from './json-text-reference.js';

const outcome = (parse: (b: Uint8Array) => unknown, text: string) => {
  try {
    return { value: parse(Buffer.from(text, 'utf8')) };
  } catch (err) {
    if (isSvcError(err)) return { field: err.field, reason: err.reason };
    throw err;
  }
};

const PIECES = [
  '"',
  '\\',
  '\\"',
  '\\\\',
  '{',
  '}',
  '[',
  ']',
  ',',
  ':',
  '\u0001',
  '1e400',
  '-1e999',
  '"__proto__"',
];

/** JSON texts, and JSON texts with fragments spliced in where they break or bend the grammar. */
const texts = fc.oneof(
  fc.jsonValue({ maxDepth: 6 }).map((v) => JSON.stringify(v)),
  fc
    .tuple(
      fc.jsonValue({ maxDepth: 6 }).map((v) => JSON.stringify(v)),
      fc.array(fc.tuple(fc.nat(), fc.constantFrom(...PIECES)), { maxLength: 4 }),
    )
    .map(([text, edits]) => {
      let t = text;
      for (const [at, piece] of edits) {
        const i = at % (t.length + 1);
        t = t.slice(0, i) + piece + t.slice(i);
      }
      return t;
    }),
  fc
    .array(fc.tuple(fc.constantFrom('a', '\\u0061', 'a\\\\', 'a\\"', '\\\\', '\\n', 'b'), fc.jsonValue()), {
      maxLength: 4,
    })
    .map((members) => `{${members.map(([k, v]) => `"${k}":${JSON.stringify(v)}`).join(',')}}`),
);

describe('parseJsonText against the scanner it replaced', () => {
  it('parses and refuses exactly as before, with the same field and reason', () => {
    fc.assert(
      fc.property(texts, (text) => {
        expect(outcome(parseJsonText, text)).toEqual(outcome(referenceParseJsonText, text));
      }),
      { numRuns: 5000 },
    );
  });
});
