/**
 * Strict text encodings (evidence-format.md §1, §8). Decoders return `undefined` for any
 * text that does not re-encode to exactly itself, so one value has exactly one spelling:
 * Node's own base64 decoder skips junk and accepts non-zero padding bits, and hashes
 * written in upper case would be a second spelling of the same bytes.
 */

const HEX_DIGITS = '0123456789abcdef';
/** The two digit codes of each byte, at 2b and 2b + 1. */
const HEX_CODES = Uint8Array.from({ length: 512 }, (_, i) =>
  HEX_DIGITS.charCodeAt(i % 2 === 0 ? i >> 5 : (i >> 1) & 15),
);
/** The digits are ASCII, which every single-byte decoder reads as itself. */
const hexText = new TextDecoder('latin1');
/** Reused for hashes and ids (a few dozen bytes); a longer input gets its own. */
const HEX_SCRATCH = new Uint8Array(256);

export function encodeHex(bytes: Uint8Array): string {
  // One native decode of the digit codes: concatenating 32 two-letter strings made a chain
  // of 32 strings per hash on every journal append, each flattened and collected after.
  const n = bytes.length * 2;
  const out = n <= HEX_SCRATCH.length ? HEX_SCRATCH : new Uint8Array(n);
  for (let i = 0; i < bytes.length; i++) {
    const at = bytes[i]! * 2;
    out[2 * i] = HEX_CODES[at]!;
    out[2 * i + 1] = HEX_CODES[at + 1]!;
  }
  return hexText.decode(out.subarray(0, n));
}

/** The value of each lowercase hex digit by its char code; -1 for every other code below 128. */
const NIBBLE = Int8Array.from({ length: 128 }, (_, code) =>
  code >= 0x30 && code <= 0x39 ? code - 0x30 : code >= 0x61 && code <= 0x66 ? code - 0x57 : -1,
);
const nibble = (code: number): number => (code < 128 ? NIBBLE[code]! : -1);

/** Lowercase hex only; `undefined` for odd length, upper case or any other character. */
export function decodeHex(text: string): Uint8Array | undefined {
  if (text.length % 2 !== 0) return undefined;
  const out = new Uint8Array(text.length / 2);
  for (let i = 0; i < out.length; i++) {
    const high = nibble(text.charCodeAt(2 * i));
    const low = nibble(text.charCodeAt(2 * i + 1));
    if (high < 0 || low < 0) return undefined;
    out[i] = (high << 4) | low;
  }
  return out;
}

const B64_ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/';
const B64_VALUE = new Map<string, number>(Array.from(B64_ALPHABET, (c, i) => [c, i]));

/** RFC 4648 §4, standard alphabet, with padding. */
export function encodeBase64(bytes: Uint8Array): string {
  let out = '';
  for (let i = 0; i < bytes.length; i += 3) {
    const b0 = bytes[i]!;
    const b1 = i + 1 < bytes.length ? bytes[i + 1]! : 0;
    const b2 = i + 2 < bytes.length ? bytes[i + 2]! : 0;
    out += B64_ALPHABET[b0 >> 2]! + B64_ALPHABET[((b0 & 3) << 4) | (b1 >> 4)]!;
    out += i + 1 < bytes.length ? B64_ALPHABET[((b1 & 15) << 2) | (b2 >> 6)]! : '=';
    out += i + 2 < bytes.length ? B64_ALPHABET[b2 & 63]! : '=';
  }
  return out;
}

/**
 * RFC 4648 base64 decoded strictly: standard alphabet, length a multiple of 4, padding only
 * at the end, and the text must be the canonical encoding of the bytes (zero padding bits).
 */
export function decodeBase64(text: string): Uint8Array | undefined {
  if (text.length % 4 !== 0) return undefined;
  const padding = text.endsWith('==') ? 2 : text.endsWith('=') ? 1 : 0;
  const out = new Uint8Array((text.length / 4) * 3 - padding);
  let bits = 0;
  let bitCount = 0;
  let offset = 0;
  for (let i = 0; i < text.length - padding; i++) {
    const value = B64_VALUE.get(text[i]!);
    if (value === undefined) return undefined;
    bits = ((bits << 6) | value) & 0xffffff;
    bitCount += 6;
    if (bitCount >= 8) {
      bitCount -= 8;
      out[offset++] = (bits >> bitCount) & 0xff;
    }
  }
  return encodeBase64(out) === text ? out : undefined;
}

const SURROGATE = /[\uD800-\uDFFF]/;

/**
 * `String.prototype.isWellFormed` where the runtime has it (Node 20, current browsers): it
 * answers a one-byte string at once, and a journal append checks every key and string of its
 * record. Older browsers (the console's verifier runs in the auditor's) take the scan.
 */
const nativeWellFormed = typeof String.prototype.isWellFormed === 'function';

/** True when the string holds no lone UTF-16 surrogate, i.e. it has a UTF-8 encoding. */
export function isWellFormedUnicode(text: string): boolean {
  return nativeWellFormed ? text.isWellFormed() : scanWellFormed(text);
}

/** The same answer without `isWellFormed` (exported for the test that holds the two equal). */
export function scanWellFormed(text: string): boolean {
  // Most text holds no surrogate at all: the native scan answers that without the loop.
  if (!SURROGATE.test(text)) return true;
  for (let i = 0; i < text.length; i++) {
    const unit = text.charCodeAt(i);
    if (unit >= 0xd800 && unit <= 0xdbff) {
      const next = text.charCodeAt(i + 1);
      if (!(next >= 0xdc00 && next <= 0xdfff)) return false;
      i++;
    } else if (unit >= 0xdc00 && unit <= 0xdfff) {
      return false;
    }
  }
  return true;
}

const utf8Encoder = new TextEncoder();

/** UTF-8 bytes of a string; refuses lone surrogates, which TextEncoder would silently replace. */
export function encodeUtf8(text: string): Uint8Array {
  if (!isWellFormedUnicode(text)) {
    throw new TypeError('string holds a lone surrogate and has no UTF-8 encoding');
  }
  return utf8Encoder.encode(text);
}
