import { cjson } from './cjson.js';
import type { Sha256 } from './crypto-provider.js';
import { encodeUtf8 } from './encoding.js';

/** Fields of an entry line that are not part of its preimage (evidence-format.md §3). */
const NOT_IN_PREIMAGE: ReadonlySet<string> = new Set(['type', 'chain_hash', 'leaf']);

/**
 * `preimage_i = CJSON(the entry line's object without "type", "chain_hash" and "leaf")`.
 * Every other field stays, a tombstone included, so an added or changed field changes
 * the leaf.
 */
export function entryPreimage(entry: object): string {
  // Object.fromEntries defines own properties, so a "__proto__" key stays data.
  return cjson(Object.fromEntries(Object.entries(entry).filter(([key]) => !NOT_IN_PREIMAGE.has(key))));
}

/** `leaf_i = H(preimage_i)`: the 32 raw bytes, written as hex in the entry's `leaf`. */
export function entryLeaf(entry: object, sha256: Sha256): Uint8Array {
  return sha256(encodeUtf8(entryPreimage(entry)));
}
