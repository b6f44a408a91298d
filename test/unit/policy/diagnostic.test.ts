import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { formatDiagnostic, positionOfByte, positionOfIndex } from '../../../src/policy/diagnostic.js';

describe('positions', () => {
  it('counts lines and columns from a UTF-8 byte offset', () => {
    const text = 'ab\ncdé\n😀x';
    expect(positionOfByte(text, 0)).toEqual({ line: 1, column: 1 });
    expect(positionOfByte(text, 3)).toEqual({ line: 2, column: 1 });
    // "é" is two bytes: the newline after it is byte 7, "😀" (four bytes) starts line 3.
    expect(positionOfByte(text, 7)).toEqual({ line: 2, column: 4 });
    expect(positionOfByte(text, 8)).toEqual({ line: 3, column: 1 });
    expect(positionOfByte(text, 12)).toEqual({ line: 3, column: 2 });
    expect(positionOfByte(text, 999)).toEqual({ line: 3, column: 3 });
  });

  it('agrees with the string index of the same character', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'grapheme', maxLength: 60 }), fc.nat(), (text, pick) => {
        const chars = [...text];
        const k = chars.length === 0 ? 0 : pick % chars.length;
        const prefix = chars.slice(0, k).join('');
        const bytes = Buffer.byteLength(prefix, 'utf8');
        expect(positionOfByte(text, bytes)).toEqual(positionOfIndex(text, prefix.length));
      }),
    );
  });

  it('formats as line:column', () => {
    expect(formatDiagnostic({ message: 'm', line: 3, column: 7, help: 'h' })).toBe('3:7: m (help: h)');
  });
});
