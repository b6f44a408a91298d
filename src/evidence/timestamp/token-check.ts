import * as pkijs from 'pkijs';
import type { Sha256 } from '../crypto-provider.js';
import { decodeBase64 } from '../encoding.js';
import { imprintMatches, isGranted, parseTimestampResponse } from './rfc3161.js';

/**
 * evidence-format.md §6.1: an RFC 3161 token verifies only when its status is granted, it
 * is CMS SignedData over a TSTInfo, the imprint is SHA-256 of the head payload, its genTime
 * equals the recorded time to the second, the CMS signature verifies with SHA-256 or
 * stronger, the signer's EKU (if any) allows timeStamping, and the signer chains to a root
 * the caller supplied. pkijs checks the signature and the chain; the rest it leaves to its
 * caller, so each is checked here by name.
 */

export type TimestampProblem =
  | 'timestamp_token_malformed'
  | 'timestamp_not_granted'
  | 'timestamp_imprint_mismatch'
  | 'timestamp_time_mismatch'
  | 'timestamp_weak_hash'
  | 'timestamp_signature_invalid'
  | 'timestamp_eku_missing'
  | 'timestamp_untrusted';

export type TokenVerdict =
  { ok: true; genTime: Date } | { ok: false; code: TimestampProblem; message: string };

const OID_EKU = '2.5.29.37';
const OID_TIME_STAMPING = '1.3.6.1.5.5.7.3.8';
const STRONG_DIGESTS: ReadonlySet<string> = new Set([
  '2.16.840.1.101.3.4.2.1', // SHA-256
  '2.16.840.1.101.3.4.2.2', // SHA-384
  '2.16.840.1.101.3.4.2.3', // SHA-512
]);
/** Signature algorithms that carry their own (weak) digest, whatever digestAlgorithm says. */
const WEAK_SIGNATURES: ReadonlySet<string> = new Set([
  '1.2.840.113549.1.1.4', // md5WithRSAEncryption
  '1.2.840.113549.1.1.5', // sha1WithRSAEncryption
  '1.2.840.10045.4.1', // ecdsa-with-SHA1
  '1.2.840.10040.4.3', // dsa-with-sha1
]);

const fail = (code: TimestampProblem, message: string): TokenVerdict => ({ ok: false, code, message });

/** Parse trust roots once: DER X.509 certificates. Throws on bytes that are not one. */
export function parseTsaRoots(ders: readonly Uint8Array[]): pkijs.Certificate[] {
  return ders.map((der) => pkijs.Certificate.fromBER(der.slice().buffer));
}

/** `payload` is what was stamped (the head payload): pkijs checks the imprint against it too. */
export async function checkTimestampToken(
  tokenBase64: string,
  payload: Uint8Array,
  time: string,
  roots: readonly pkijs.Certificate[],
  sha256: Sha256,
): Promise<TokenVerdict> {
  const digest = sha256(payload);
  const der = decodeBase64(tokenBase64);
  if (der === undefined) return fail('timestamp_token_malformed', 'the token is not strict base64');
  let parsed;
  try {
    parsed = parseTimestampResponse(der);
  } catch (err) {
    return fail(
      'timestamp_token_malformed',
      `the token is not an RFC 3161 TimeStampResp: ${(err as Error).message}`,
    );
  }
  if (!isGranted(parsed.status)) {
    return fail('timestamp_not_granted', `the authority's status is ${parsed.status}, not granted (0 or 1)`);
  }
  const { signedData, tstInfo } = parsed;
  if (signedData === undefined || tstInfo === undefined) {
    return fail('timestamp_token_malformed', 'a granted response without a timestamp token');
  }
  if (!imprintMatches(tstInfo, digest)) {
    return fail('timestamp_imprint_mismatch', 'the token does not stamp SHA-256 of this head payload');
  }
  const genTime = tstInfo.genTime;
  const recorded = Date.parse(time);
  if (!Number.isFinite(recorded) || Math.floor(recorded / 1000) !== Math.floor(genTime.getTime() / 1000)) {
    return fail(
      'timestamp_time_mismatch',
      `the recorded time ${time} differs from the token's genTime ${genTime.toISOString()}`,
    );
  }
  if (signedData.signerInfos.length !== 1) {
    return fail('timestamp_token_malformed', `the token has ${signedData.signerInfos.length} signers, not 1`);
  }
  const signer = signedData.signerInfos[0]!;
  if (
    !STRONG_DIGESTS.has(signer.digestAlgorithm.algorithmId) ||
    WEAK_SIGNATURES.has(signer.signatureAlgorithm.algorithmId)
  ) {
    return fail('timestamp_weak_hash', 'the token is signed with a digest weaker than SHA-256');
  }
  let signerCert: pkijs.Certificate | null | undefined;
  try {
    const result = await signedData.verify({
      signer: 0,
      checkChain: false,
      extendedMode: true,
      data: payload.slice().buffer,
    });
    if (result.signatureVerified !== true) throw new Error(result.message);
    signerCert = result.signerCertificate;
  } catch (err) {
    return fail(
      'timestamp_signature_invalid',
      `the token's CMS signature does not verify: ${(err as Error).message}`,
    );
  }
  if (!signerCert)
    return fail('timestamp_signature_invalid', "the token does not carry its signer's certificate");
  const eku = signerCert.extensions?.find((e) => e.extnID === OID_EKU);
  if (eku !== undefined) {
    const purposes = (eku.parsedValue as pkijs.ExtKeyUsage | undefined)?.keyPurposes ?? [];
    if (!purposes.includes(OID_TIME_STAMPING)) {
      return fail(
        'timestamp_eku_missing',
        "the signer certificate's extended key usage does not allow timeStamping",
      );
    }
  }
  if (roots.length === 0) return fail('timestamp_untrusted', 'no trust roots given');
  const others = (signedData.certificates ?? []).filter(
    (c): c is pkijs.Certificate => c instanceof pkijs.Certificate && c !== signerCert,
  );
  try {
    const chain = new pkijs.CertificateChainValidationEngine({
      trustedCerts: [...roots],
      certs: [...others, signerCert],
      checkDate: genTime,
    });
    const result = await chain.verify();
    if (!result.result) throw new Error(result.resultMessage);
  } catch (err) {
    return fail(
      'timestamp_untrusted',
      `the signer does not chain to a supplied root at genTime: ${(err as Error).message}`,
    );
  }
  return { ok: true, genTime };
}
