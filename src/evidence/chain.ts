import { concatBytes } from './bytes.js';
import type { Sha256 } from './crypto-provider.js';
import { encodeUtf8 } from './encoding.js';

const CHAIN_DOMAIN = encodeUtf8('svc/chain/1');

/** `c_0 = H(UTF8("svc/chain/1") || 0x00 || UTF8(log_id))` (evidence-format.md §4); never written. */
export function chainGenesis(logId: string, sha256: Sha256): Uint8Array {
  return sha256(concatBytes(CHAIN_DOMAIN, Uint8Array.of(0), encodeUtf8(logId)));
}

/** Reused for every link: hashing is synchronous and never keeps its input, and a link is hashed per entry. */
const link = Uint8Array.of(1, ...new Array<number>(64).fill(0));

/** `c_i = H(0x01 || c_{i-1} || leaf_i)`, written as hex in the entry's `chain_hash`. */
export function chainNext(previous: Uint8Array, leaf: Uint8Array, sha256: Sha256): Uint8Array {
  if (previous.length !== 32 || leaf.length !== 32) throw new RangeError('chain inputs are 32-byte hashes');
  link.set(previous, 1);
  link.set(leaf, 33);
  return sha256(link);
}
