import type { Sha256 } from '../crypto-provider.js';
import { entryLeaf } from '../entry.js';
import { asHash, asSafeInteger, asString, type JsonObject } from './field-readers.js';
import type { DecodedLine } from './line-decoder.js';

/**
 * What the cross-line checks need from one entry line, taken out of it by the per-line
 * stage. Small on purpose: it is what a worker thread hands back for each entry.
 */
export interface EntryFacts {
  tenantId?: string | undefined;
  sequence?: number | undefined;
  /** The `leaf` and `chain_hash` as written, decoded. */
  leaf?: Uint8Array | undefined;
  chainHash?: Uint8Array | undefined;
  /** H(preimage); undefined when the line has no canonical form to hash. */
  recomputedLeaf?: Uint8Array | undefined;
  /** The whole entry, kept only when it carries a tombstone: the redaction checks read its content. */
  tombstoned?: JsonObject | undefined;
}

export function entryFacts(line: DecodedLine, schemaValid: boolean, sha256: Sha256): EntryFacts {
  const entry = line.value;
  return {
    tenantId: asString(entry.tenant_id),
    sequence: asSafeInteger(entry.sequence),
    leaf: asHash(entry.leaf),
    chainHash: asHash(entry.chain_hash),
    recomputedLeaf: recomputeLeaf(line, schemaValid, sha256),
    tombstoned: entry.tombstone === undefined ? undefined : entry,
  };
}

const utf8 = new TextEncoder();

function recomputeLeaf(line: DecodedLine, schemaValid: boolean, sha256: Sha256): Uint8Array | undefined {
  const fast = line.canonical && schemaValid ? preimageOfCanonicalEntry(line.text) : undefined;
  // The text came through a fatal UTF-8 decoder, so it is well-formed and TextEncoder is exact.
  if (fast !== undefined) return sha256(utf8.encode(fast));
  try {
    return entryLeaf(line.value, sha256);
  } catch {
    return undefined; // a lone surrogate: the line has no canonical form, already reported
  }
}

const HASH_MEMBER = 64 + 2; // 64 hex digits in quotes
const CHAIN = ',"chain_hash":';
const LEAF = ',"leaf":';
const TYPE_END = ',"type":"entry"}';

/**
 * §3's preimage cut out of the line's own text, without serialising again. Sound only for
 * a line that is canonical and schema-valid: members are then in code-unit order, `type`
 * (last in that order) ends the object, `chain_hash` and `leaf` are 64-hex strings and are
 * never first, and `,"` cannot occur inside a string (every quote there is escaped), so
 * each marker below is the top-level member. Removing members from a canonical object
 * leaves the canonical form of the rest. Anything unexpected returns undefined and the
 * caller serialises instead.
 */
export function preimageOfCanonicalEntry(text: string): string | undefined {
  if (!text.endsWith(TYPE_END)) return undefined;
  const chain = text.indexOf(CHAIN);
  const leaf = text.indexOf(LEAF);
  if (
    chain < 1 ||
    leaf < chain ||
    !isHashMember(text, chain + CHAIN.length) ||
    !isHashMember(text, leaf + LEAF.length)
  ) {
    return undefined;
  }
  const chainEnd = chain + CHAIN.length + HASH_MEMBER;
  const leafEnd = leaf + LEAF.length + HASH_MEMBER;
  return (
    text.slice(0, chain) +
    text.slice(chainEnd, leaf) +
    text.slice(leafEnd, text.length - TYPE_END.length) +
    '}'
  );
}

function isHashMember(text: string, at: number): boolean {
  return text.charCodeAt(at) === 0x22 && text.charCodeAt(at + HASH_MEMBER - 1) === 0x22;
}
