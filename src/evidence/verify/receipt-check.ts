import type { CryptoProvider } from '../crypto-provider.js';
import { logIdFor } from '../log-id.js';
import { verifyInclusion } from '../merkle-proof.js';
import { leafHash } from '../merkle-tree.js';
import { parseTsaRoots } from '../timestamp/token-check.js';
import { checkKeyNaming } from './anchor-check.js';
import { asHash, asObject, asSafeInteger, asString } from './field-readers.js';
import { FindingSink, type Finding } from './findings.js';
import { checkTreeHead } from './head-check.js';
import { checkSchemaOfKind } from './line-schema.js';
import { checkReceiptFields } from './receipt-fields.js';
import { receiptLeaf } from './receipt-leaf.js';
import { unboundProofFields } from './receipt-unverified.js';
import { PASS_DOES_NOT_ESTABLISH } from './report.js';
import { newVerifierState } from './state.js';
import { checkTimestamp, type TimestampStatus } from './timestamp-check.js';
import { pinnedWitnessesFrom, trustedKeysFrom, type TrustOptions } from './trust.js';
import { tallyWitnesses, type WitnessTally } from './witness-check.js';

export interface ReceiptReport {
  result: 'pass' | 'fail';
  summary: string;
  findings: Finding[];
  receipt_id?: string;
  sequence?: number;
  tree_size?: number;
  redacted: boolean;
  /**
   * What a pass proves of the entry: its content (the leaf recomputed from every field), or,
   * for a redacted entry, only its position (a leaf taken as written, under the signed head).
   */
  proves: 'content' | 'position';
  /** Published fields no check binds, by path: reported, never vouched for. */
  unverified: string[];
  timestamp: TimestampStatus;
  witnesses: WitnessTally;
  notes: string[];
  trustedKeyIds: string[];
  establishes: string;
  doesNotEstablish: readonly string[];
}

const ESTABLISHES_CONTENT =
  'A pass establishes that this entry, with these published entry fields, is at this position in the log under a head signed by a key you trust (and, where reported, timestamped by an authority you trust and cosigned by witnesses you pinned). The fields listed as unverified are not established.';
const ESTABLISHES_POSITION =
  'A pass of a redacted entry establishes its position only: an entry with this leaf is at this sequence in the log under a head signed by a key you trust. Its content is gone and its tombstone (reason, authorised_by, removed_at, range) cannot be checked against its redaction record, which the proof does not carry.';

/** The members of `proof` (the daemon's ReceiptProof): anything else is an unknown field. */
const PROOF_FIELDS: ReadonlySet<string> = new Set([
  'entry',
  'leaf_index',
  'tree_size',
  'audit_path',
  'anchor',
]);

/**
 * Check a receipt with its proof (`GET /v1/receipts/{id}?proof=true`) offline: the entry
 * line against the published schema, its leaf recomputed from every field (or, redacted,
 * every field equal to the fixed values of evidence-format.md §7), the receipt's fields
 * against the entry, the audit path up to the head's root, the head's signature and key
 * naming under trusted keys, and the head's timestamp and cosignatures under the caller's
 * roots and pins. What nothing binds is listed in `unverified`. Bad input is findings; only
 * unusable trust options throw.
 */
export async function verifyReceipt(
  doc: unknown,
  options: TrustOptions,
  crypto: CryptoProvider,
): Promise<ReceiptReport> {
  const trustedKeys = trustedKeysFrom(options, crypto.sha256);
  const sink = new FindingSink(1000);
  const state = newVerifierState(crypto, trustedKeys, false, sink, {
    tsaRoots: parseTsaRoots(options.tsaRoots ?? []),
    pins: pinnedWitnessesFrom(options),
    requireWitnesses: options.requireWitnesses ?? 0,
  });
  const report: ReceiptReport = {
    result: 'fail',
    summary: '',
    findings: [],
    redacted: false,
    proves: 'content',
    unverified: [],
    timestamp: 'absent',
    witnesses: { cosignatures: 0, verified: 0, unpinned: 0, notCounted: 0, independent: 0 },
    notes: [],
    trustedKeyIds: trustedKeys.map((k) => k.keyId),
    establishes: ESTABLISHES_CONTENT,
    doesNotEstablish: PASS_DOES_NOT_ESTABLISH,
  };
  const receipt = asObject(doc);
  if (receipt === undefined) {
    sink.add('schema_violation', null, 'the receipt is not a JSON object');
    return finish(report, sink);
  }
  report.receipt_id = asString(receipt.receipt_id);
  if (receipt.proof === null || receipt.proof === undefined) {
    sink.add(
      'proof_missing',
      null,
      'the receipt carries no proof: read it again with ?proof=true after the next anchor',
    );
    return finish(report, sink);
  }
  const proof = asObject(receipt.proof);
  const entry = asObject(proof?.entry);
  const anchor = asObject(proof?.anchor);
  const head = asObject(anchor?.head);
  const leafIndex = asSafeInteger(proof?.leaf_index);
  const treeSize = asSafeInteger(proof?.tree_size);
  const path = Array.isArray(proof?.audit_path) ? proof.audit_path.map(asHash) : undefined;
  if (
    proof === undefined ||
    entry === undefined ||
    anchor === undefined ||
    head === undefined ||
    leafIndex === undefined ||
    treeSize === undefined ||
    path === undefined ||
    path.some((p) => p === undefined)
  ) {
    sink.add(
      'proof_malformed',
      null,
      'the proof is not {entry, leaf_index, tree_size, audit_path: [64 hex], anchor: {head}}',
    );
    return finish(report, sink);
  }
  for (const field of Object.keys(proof)) {
    if (!PROOF_FIELDS.has(field)) {
      sink.add('unknown_field', null, `unknown field ${JSON.stringify(field)} in /proof`);
    }
  }
  checkSchemaOfKind('entry', entry, sink, null, '/proof/entry');
  checkSchemaOfKind('anchor', anchor, sink, null, '/proof/anchor');
  report.sequence = asSafeInteger(entry.sequence);
  report.tree_size = treeSize;
  const { leaf, redacted } = receiptLeaf(entry, sink, crypto.sha256);
  if (redacted) {
    report.redacted = true;
    report.proves = 'position';
    report.establishes = ESTABLISHES_POSITION;
    report.notes.push(
      'the entry is redacted: its leaf cannot be recomputed and is taken as written, so the proof binds its position, not its content; its tombstone cannot be checked against its redaction record',
    );
  }
  const unboundReceiptFields = checkReceiptFields(receipt, entry, report.redacted, sink);
  if (report.sequence !== leafIndex + 1) {
    sink.add('proof_malformed', null, `leaf_index ${leafIndex} is not the entry's sequence - 1`);
  }
  if (asSafeInteger(head.tree_size) !== treeSize) {
    sink.add('proof_malformed', null, `tree_size ${treeSize} is not the head's`);
  }
  const root = asHash(head.root_hash);
  if (
    leaf === undefined ||
    root === undefined ||
    !verifyInclusion(
      leafHash(leaf, crypto.sha256),
      leafIndex,
      treeSize,
      path as Uint8Array[],
      root,
      crypto.sha256,
    )
  ) {
    sink.add(
      'inclusion_invalid',
      null,
      `the audit path does not lead from leaf ${leafIndex} to the root of the head over ${treeSize} entries`,
    );
  }
  // The head is signed; the entry's tenant is bound to it here (for a redacted entry, only here).
  const tenant = asString(entry.tenant_id);
  if (tenant === undefined || tenant === '' || asString(head.log_id) !== logIdFor(tenant, crypto.sha256)) {
    sink.add('log_id_mismatch', null, `the head's log_id is not the log of the entry's tenant_id`);
  }
  const keyId = asString(anchor.key_id);
  const signer = checkTreeHead(state, 0, head, 'head', keyId);
  checkKeyNaming(state, 0, keyId, signer?.keyId, asString(anchor.algorithm));
  report.timestamp = await checkTimestamp(
    { crypto, sink, tsaRoots: state.attestation.tsaRoots },
    0,
    asObject(anchor.timestamp),
    head,
  );
  report.witnesses = tallyWitnesses(
    { crypto, sink, pins: state.attestation.pins, logKeys: trustedKeys },
    0,
    head,
    anchor.witnesses,
  );
  const required = state.attestation.requireWitnesses;
  if (report.witnesses.independent < required) {
    sink.add(
      'witnesses_required',
      null,
      `${report.witnesses.independent} independent witnesses cosigned the head; ${required} are required`,
    );
  }
  report.unverified = [
    ...unboundReceiptFields,
    ...unboundProofFields(anchor, report.redacted, report.timestamp, state.attestation.pins),
  ];
  return finish(report, sink);
}

function finish(report: ReceiptReport, sink: FindingSink): ReceiptReport {
  report.findings = [...sink.findings];
  report.result = sink.total === 0 ? 'pass' : 'fail';
  report.summary =
    report.result === 'pass'
      ? report.redacted
        ? 'pass, redacted entry: proves position, not content'
        : 'pass'
      : `fail (${sink.total} ${sink.total === 1 ? 'finding' : 'findings'})`;
  if (report.timestamp === 'unverified')
    report.notes.push('the head timestamp is present, not verified (no --tsa-cert roots given)');
  if (report.timestamp === 'noop')
    report.notes.push('the head timestamp is a noop placeholder, not third-party attestation');
  if (report.witnesses.unpinned > 0)
    report.notes.push(
      `${report.witnesses.unpinned} cosignatures not verified (no --witness-key pinned for their ids)`,
    );
  report.notes.push(`${report.witnesses.independent} independent witnesses cosigned the head`);
  return report;
}
