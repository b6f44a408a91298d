import { describe, expect, it } from 'vitest';
import { isJsonPointer, resolvePointer } from '../../../src/core/json-pointer.js';

// RFC 6901 section 5's example document and its pointers.
const DOC = {
  foo: ['bar', 'baz'],
  '': 0,
  'a/b': 1,
  'c%d': 2,
  'e^f': 3,
  'g|h': 4,
  'i\\j': 5,
  'k"l': 6,
  ' ': 7,
  'm~n': 8,
};

describe('JSON pointer (RFC 6901)', () => {
  it('resolves the RFC 6901 examples', () => {
    const cases: [string, unknown][] = [
      ['', DOC],
      ['/foo', ['bar', 'baz']],
      ['/foo/0', 'bar'],
      ['/', 0],
      ['/a~1b', 1],
      ['/c%d', 2],
      ['/e^f', 3],
      ['/g|h', 4],
      ['/i\\j', 5],
      ['/k"l', 6],
      ['/ ', 7],
      ['/m~0n', 8],
    ];
    for (const [p, v] of cases) expect(resolvePointer(DOC, p), p).toEqual(v);
  });

  it('does not resolve what is not there, nor malformed pointers or indexes', () => {
    for (const p of ['/nope', '/foo/2', '/foo/01', '/foo/-', '/foo/0/x', 'foo', '/~2', '/a~']) {
      expect(resolvePointer(DOC, p), p).toBeUndefined();
    }
    expect(resolvePointer({ a: 1 }, '/toString')).toBeUndefined();
    expect(isJsonPointer('/id')).toBe(true);
    expect(isJsonPointer('id')).toBe(false);
  });
});
