import type { FormatDefinition } from 'ajv/dist/2020.js';
import type { RegExpEngine, RegExpLike } from 'ajv/dist/types/index.js';

/**
 * Faster checks for what the verifier tests on every entry line: three hashes against a
 * pattern and two or three RFC 3339 times. Each fast check only ever says yes to a string
 * the library check also accepts; anything else goes to the library, so the published
 * schema means exactly what ajv and ajv-formats say it means.
 */

const HEX64 = '^[0-9a-f]{64}$';

function isLowerHex64(text: string): boolean {
  if (text.length !== 64) return false;
  for (let i = 0; i < 64; i++) {
    const c = text.charCodeAt(i);
    if (!((c >= 0x30 && c <= 0x39) || (c >= 0x61 && c <= 0x66))) return false;
  }
  return true;
}

// ajv keys compiled patterns by their text.
const hex64: RegExpLike = Object.assign({ test: isLowerHex64 }, { toString: () => `/${HEX64}/` });

/** ajv's RegExp factory, with the hash pattern as a plain loop. */
export const regExp: RegExpEngine = Object.assign(
  (pattern: string, flags: string): RegExpLike => (pattern === HEX64 ? hex64 : new RegExp(pattern, flags)),
  { code: 'new RegExp' },
);

const DAYS = [0, 31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31];
// Positions of the digits in YYYY-MM-DDTHH:MM:SS.sssZ.
const DIGITS = [0, 1, 2, 3, 5, 6, 8, 9, 11, 12, 14, 15, 17, 18, 20, 21, 22];

/** The daemon's own spelling (Date.prototype.toISOString), a valid date, no leap second. */
function isDaemonTime(s: string): boolean {
  if (s.length !== 24 || s[4] !== '-' || s[7] !== '-' || s[10] !== 'T' || s[13] !== ':' || s[16] !== ':')
    return false;
  if (s[19] !== '.' || s[23] !== 'Z') return false;
  for (const i of DIGITS) {
    const c = s.charCodeAt(i);
    if (c < 0x30 || c > 0x39) return false;
  }
  // Digits only from here (checked above), so each is its code less 0x30.
  const two = (at: number) => (s.charCodeAt(at) - 0x30) * 10 + s.charCodeAt(at + 1) - 0x30;
  const year = two(0) * 100 + two(2);
  const month = two(5);
  const day = two(8);
  const leap = year % 4 === 0 && (year % 100 !== 0 || year % 400 === 0);
  const days = month === 2 && leap ? 29 : DAYS[month];
  return (
    month >= 1 && month <= 12 && day >= 1 && day <= days! && two(11) <= 23 && two(14) <= 59 && two(17) <= 59
  );
}

/** `date-time` as ajv-formats defines it, answered at once for the daemon's spelling. */
export function fastDateTime(library: FormatDefinition<string>): FormatDefinition<string> {
  const check = library.validate;
  const slow = typeof check === 'function' ? check : (s: string) => (check as RegExp).test(s);
  return { ...library, validate: (s: string) => isDaemonTime(s) || (slow(s) as boolean) };
}
