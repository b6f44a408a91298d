import { bytesEqual } from '../bytes.js';
import { verifyCosignature } from '../cosignature.js';
import type { CryptoProvider } from '../crypto-provider.js';
import { decodeBase64 } from '../encoding.js';
import { asObject, asString, type JsonObject } from './field-readers.js';
import type { FindingCollector } from './findings.js';
import type { PinnedWitness, TrustedKey } from './trust.js';

export interface WitnessContext {
  crypto: CryptoProvider;
  sink: FindingCollector;
  pins: ReadonlyMap<string, PinnedWitness>;
  /** The log keys: a witness holding one of them is the log cosigning itself. */
  logKeys: readonly TrustedKey[];
}

/** What one head's cosignatures add up to (§6.2). */
export interface WitnessTally {
  cosignatures: number;
  /** Verified under the key pinned for their id. */
  verified: number;
  /** No key pinned for their id: reported, never counted. */
  unpinned: number;
  /** Verified but not counted: a carried key other than the pinned one, a log key, a repeat. */
  notCounted: number;
  /** Distinct pinned witnesses, by key and by id, that are not the log: what --require-witnesses counts. */
  independent: number;
}

/**
 * §6.2, exactly: a cosignature counts as independent only when its witness_id maps to a
 * pinned key, the carried public_key (if any) equals that key, the key is not a log key,
 * and each key and each id counts once. One that does not verify under its pinned key is a
 * finding; `key_holder` is a declaration and is never read.
 */
export function tallyWitnesses(
  ctx: WitnessContext,
  at: number,
  head: JsonObject,
  witnesses: unknown,
): WitnessTally {
  const tally: WitnessTally = { cosignatures: 0, verified: 0, unpinned: 0, notCounted: 0, independent: 0 };
  if (!Array.isArray(witnesses)) return tally;
  const keys: Uint8Array[] = [];
  const ids = new Set<string>();
  witnesses.forEach((item: unknown, i) => {
    const w = asObject(item);
    if (w === undefined) return;
    tally.cosignatures += 1;
    const signature = asString(w.signature);
    const carried = asString(w.public_key);
    if (signature !== undefined && decodeBase64(signature) === undefined) {
      ctx.sink.add('malformed_base64', at, `witnesses/${i}/signature is not strict base64`);
    }
    if (carried !== undefined && decodeBase64(carried) === undefined) {
      ctx.sink.add('malformed_base64', at, `witnesses/${i}/public_key is not strict base64`);
    }
    const id = asString(w.witness_id);
    const pinned = id === undefined ? undefined : ctx.pins.get(id);
    if (id === undefined || pinned === undefined) {
      tally.unpinned += 1;
      return;
    }
    const signedAt = asString(w.signed_at);
    if (
      signature === undefined ||
      signedAt === undefined ||
      !verifyCosignature(head, signedAt, signature, pinned.key, ctx.crypto)
    ) {
      ctx.sink.add(
        'witness_signature_invalid',
        at,
        `witnesses/${i} (${id}) does not verify under the key pinned for ${id}`,
      );
      return;
    }
    tally.verified += 1;
    const carriedKey = carried === undefined ? undefined : decodeBase64(carried);
    const counts =
      (carried === undefined || (carriedKey !== undefined && bytesEqual(carriedKey, pinned.key))) &&
      !ctx.logKeys.some((k) => bytesEqual(k.raw, pinned.key)) &&
      !ids.has(id) &&
      !keys.some((k) => bytesEqual(k, pinned.key));
    if (!counts) {
      tally.notCounted += 1;
      return;
    }
    ids.add(id);
    keys.push(pinned.key);
    tally.independent += 1;
  });
  return tally;
}
