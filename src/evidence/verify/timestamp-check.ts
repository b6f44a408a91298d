import type * as pkijs from 'pkijs';
import type { CryptoProvider } from '../crypto-provider.js';
import { decodeBase64, encodeHex, encodeUtf8 } from '../encoding.js';
import { checkTimestampToken } from '../timestamp/token-check.js';
import { headPayload } from '../tree-head.js';
import { asString, type JsonObject } from './field-readers.js';
import type { FindingCollector } from './findings.js';

/** §6.1: the status of one anchor's timestamp. */
export type TimestampStatus = 'absent' | 'noop' | 'unverified' | 'verified' | 'invalid';

export interface TimestampContext {
  crypto: CryptoProvider;
  sink: FindingCollector;
  /** Parsed --tsa-cert roots; empty: tokens are reported unverified, never verified. */
  tsaRoots: readonly pkijs.Certificate[];
}

/**
 * The timestamp of one head. The digest binding needs no trust roots and is always checked;
 * the token itself only against the caller's roots (asynchronously: CMS and chain checks
 * run on WebCrypto). The file's own `verified` field is the exporter's note, never read.
 */
export function checkTimestamp(
  ctx: TimestampContext,
  at: number,
  timestamp: JsonObject | undefined,
  head: JsonObject | undefined,
): TimestampStatus | Promise<TimestampStatus> {
  if (timestamp === undefined) return 'absent';
  const token = asString(timestamp.token);
  let bad = false;
  if (token !== undefined && decodeBase64(token) === undefined) {
    ctx.sink.add('malformed_base64', at, 'timestamp token is not strict base64');
    bad = true;
  }
  const payload = payloadOf(head);
  const expected = payload === undefined ? undefined : ctx.crypto.sha256(payload);
  const digest = asString(timestamp.digest);
  if (digest !== undefined && expected !== undefined && digest !== encodeHex(expected)) {
    ctx.sink.add(
      'timestamp_digest_mismatch',
      at,
      `timestamp digest is not H(head_payload) of this anchor's head`,
    );
    bad = true;
  }
  if (timestamp.noop === true) return bad ? 'invalid' : 'noop';
  if (bad) return 'invalid';
  if (token === undefined || ctx.tsaRoots.length === 0 || payload === undefined) return 'unverified';
  const time = asString(timestamp.time) ?? '';
  return checkTimestampToken(token, payload, time, ctx.tsaRoots, ctx.crypto.sha256).then((verdict) => {
    if (verdict.ok) return 'verified';
    ctx.sink.add(verdict.code, at, verdict.message);
    return 'invalid';
  });
}

function payloadOf(head: JsonObject | undefined): Uint8Array | undefined {
  if (head === undefined) return undefined;
  try {
    return encodeUtf8(headPayload(head));
  } catch {
    return undefined; // a lone surrogate, already reported
  }
}
