import { randomBytes } from 'node:crypto';
import { bytesEqual } from '../../evidence/bytes.js';
import { encodeBase64 } from '../../evidence/encoding.js';
import type { Timestamp } from '../../evidence/export-line.js';
import {
  imprintMatches,
  isGranted,
  nonceBytes,
  parseTimestampResponse,
  stripZeros,
  timestampRequest,
} from '../../evidence/timestamp/rfc3161.js';
import { call } from './http-call.js';

/**
 * RFC 3161 over HTTP (RFC 3161 §3.4): POST a TimeStampReq for the head digest with a fresh
 * 64-bit nonce. A response is kept only when it is granted, stamps exactly this digest and
 * echoes the nonce (so it was made for this request, not replayed); anything else throws
 * and the anchor carries no timestamp. Full token verification (signature, chain, EKU) is
 * the auditor's, against roots they choose: see evidence/timestamp/token-check.ts.
 */
export async function requestTimestamp(
  url: string,
  digest: Uint8Array,
  timeoutMs?: number,
): Promise<Timestamp> {
  const nonce = new Uint8Array(randomBytes(8));
  const res = await call(
    url,
    {
      method: 'POST',
      headers: { 'content-type': 'application/timestamp-query', accept: 'application/timestamp-reply' },
      body: timestampRequest(digest, nonce),
    },
    timeoutMs,
  );
  if (res.status !== 200) throw new Error(`the timestamp authority ${url} answered HTTP ${res.status}`);
  const der = new Uint8Array(res.body);
  let parsed;
  try {
    parsed = parseTimestampResponse(der);
  } catch (err) {
    throw new Error(`the timestamp authority ${url} sent no RFC 3161 response: ${(err as Error).message}`);
  }
  if (!isGranted(parsed.status))
    throw new Error(`the timestamp authority ${url} refused (status ${parsed.status})`);
  const { tstInfo } = parsed;
  if (tstInfo === undefined) throw new Error(`the timestamp authority ${url} granted without a token`);
  if (!imprintMatches(tstInfo, digest))
    throw new Error(`the timestamp authority ${url} stamped another digest`);
  const echoed = nonceBytes(tstInfo);
  if (echoed === undefined || !bytesEqual(echoed, stripZeros(nonce))) {
    throw new Error(`the timestamp authority ${url} did not echo the request's nonce`);
  }
  return {
    authority: url,
    digest: Buffer.from(digest).toString('hex'),
    time: tstInfo.genTime.toISOString(),
    token: encodeBase64(der),
  };
}
