import * as asn1js from 'asn1js';
import * as pkijs from 'pkijs';
import { subjectOfAttributes, type SubjectAttribute } from '../core/cert-subject.js';

/**
 * The subject of a verified client certificate (its DER) in the stored form, read attribute
 * by attribute from the certificate itself, never from a printed form: node's
 * `X509Certificate.subject` escapes and joins values, and reading that text back would
 * trim, unescape and split where the certificate did not. Undefined when the subject
 * cannot name an actor (see `subjectOfAttributes`).
 */
export function clientCertificateSubject(der: Uint8Array): string | undefined {
  let rdnSets: asn1js.BaseBlock[];
  try {
    const certificate = pkijs.Certificate.fromBER(der);
    // pkijs flattens the RDNs into one list; the Name's own DER keeps each RDN's set.
    const name = asn1js.fromBER(certificate.subject.valueBeforeDecode);
    if (name.offset === -1 || !(name.result instanceof asn1js.Sequence)) return undefined;
    rdnSets = name.result.valueBlock.value;
  } catch {
    return undefined;
  }
  const rdns: SubjectAttribute[][] = [];
  for (const set of rdnSets) {
    if (!(set instanceof asn1js.Set)) return undefined;
    const attrs: SubjectAttribute[] = [];
    for (const ava of set.valueBlock.value) {
      const [type, value] = ava instanceof asn1js.Sequence ? ava.valueBlock.value : [];
      if (!(type instanceof asn1js.ObjectIdentifier)) return undefined;
      attrs.push({
        oid: type.valueBlock.toString(),
        value: value instanceof asn1js.BaseStringBlock ? value.getValue() : undefined,
      });
    }
    rdns.push(attrs);
  }
  return subjectOfAttributes(rdns);
}
