import * as asn1js from 'asn1js';
import * as pkijs from 'pkijs';
import { bytesEqual } from '../bytes.js';

/**
 * RFC 3161 structures the daemon and the verifier share: the request the daemon sends and
 * the parts of a response both read. Parsing only, no network and no clock.
 */

export const OID_SHA256 = '2.16.840.1.101.3.4.2.1';
const OID_SIGNED_DATA = '1.2.840.113549.1.7.2';
const OID_TST_INFO = '1.2.840.113549.1.9.16.1.4';

/** A DER TimeStampReq for a SHA-256 digest, asking for the signer certificate, with a nonce. */
export function timestampRequest(digest: Uint8Array, nonce: Uint8Array): Uint8Array {
  if (digest.length !== 32) throw new RangeError('a SHA-256 digest is 32 bytes');
  const request = new pkijs.TimeStampReq({
    version: 1,
    messageImprint: new pkijs.MessageImprint({
      hashAlgorithm: new pkijs.AlgorithmIdentifier({ algorithmId: OID_SHA256 }),
      hashedMessage: new asn1js.OctetString({ valueHex: digest.slice().buffer }),
    }),
    nonce: new asn1js.Integer({ valueHex: derPositive(nonce).buffer }),
    certReq: true,
  });
  return new Uint8Array(request.toSchema().toBER(false));
}

export interface ParsedResponse {
  status: number;
  /** Present when the response carries a token that parses as SignedData over a TSTInfo. */
  signedData?: pkijs.SignedData;
  tstInfo?: pkijs.TSTInfo;
}

/** Parse a DER TimeStampResp; throws on bytes that are not one. */
export function parseTimestampResponse(der: Uint8Array): ParsedResponse {
  const response = pkijs.TimeStampResp.fromBER(der.slice().buffer);
  const status = response.status.status;
  const token = response.timeStampToken;
  if (token === undefined) return { status };
  if (token.contentType !== OID_SIGNED_DATA) throw new TypeError('the token is not CMS SignedData');
  const signedData = new pkijs.SignedData({ schema: token.content });
  const encap = signedData.encapContentInfo;
  if (encap.eContentType !== OID_TST_INFO || encap.eContent === undefined) {
    throw new TypeError('the token does not sign a TSTInfo');
  }
  const tstInfo = pkijs.TSTInfo.fromBER(encap.eContent.getValue());
  return { status, signedData, tstInfo };
}

/** PKIStatus granted (0) or grantedWithMods (1). */
export const isGranted = (status: number): boolean => status === 0 || status === 1;

/** The TSTInfo's imprint is SHA-256 over exactly `digest`. */
export function imprintMatches(tstInfo: pkijs.TSTInfo, digest: Uint8Array): boolean {
  const imprint = tstInfo.messageImprint;
  return (
    imprint.hashAlgorithm.algorithmId === OID_SHA256 &&
    bytesEqual(new Uint8Array(imprint.hashedMessage.getValue()), digest)
  );
}

/** The nonce as unsigned big-endian bytes, without leading zeros. */
export function nonceBytes(tstInfo: pkijs.TSTInfo): Uint8Array | undefined {
  if (tstInfo.nonce === undefined) return undefined;
  return stripZeros(new Uint8Array(tstInfo.nonce.valueBlock.valueHexView));
}

/** Minimal DER content of a positive INTEGER (authorities refuse a padded one as malformed). */
function derPositive(bytes: Uint8Array): Uint8Array {
  const value = stripZeros(bytes);
  return value[0]! >= 0x80 ? Uint8Array.of(0, ...value) : value;
}

export function stripZeros(bytes: Uint8Array): Uint8Array {
  let i = 0;
  while (i < bytes.length - 1 && bytes[i] === 0) i++;
  return bytes.slice(i);
}
