import type { CryptoProvider } from '../crypto-provider.js';
import { bytesEqual } from '../bytes.js';
import { encodeHex } from '../encoding.js';
import { entryLeaf } from '../entry.js';
import { logIdFor } from '../log-id.js';
import { verifyInclusion } from '../merkle-proof.js';
import { leafHash } from '../merkle-tree.js';
import { parseTsaRoots } from '../timestamp/token-check.js';
import { asHash, asObject, asSafeInteger, asString, type JsonObject } from './field-readers.js';
import { FindingSink, type Finding } from './findings.js';
import { checkTreeHead } from './head-check.js';
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
  timestamp: TimestampStatus;
  witnesses: WitnessTally;
  notes: string[];
  trustedKeyIds: string[];
  establishes: string;
  doesNotEstablish: readonly string[];
}

/** Receipt fields that must equal the entry line's (the receipt names them the same). */
const SHARED = [
  'sequence',
  'intent_id',
  'actor_id',
  'capability',
  'allowed',
  'amount_usd',
  'occurred_at',
  'linked_at',
  'record_hash',
  'leaf',
];

/**
 * Check a receipt with its proof (`GET /v1/receipts/{id}?proof=true`) offline: the leaf recomputed from the published entry
 * fields, the audit path up to the head's root, the head's signature under trusted keys,
 * and the head's timestamp and cosignatures under the caller's roots and pins. Bad input is
 * findings; only unusable trust options throw.
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
    timestamp: 'absent',
    witnesses: { cosignatures: 0, verified: 0, unpinned: 0, notCounted: 0, independent: 0 },
    notes: [],
    trustedKeyIds: trustedKeys.map((k) => k.keyId),
    establishes:
      'A pass establishes that this entry, with these published fields, is at this position in the log under a head signed by a key you trust (and, where reported, timestamped by an authority you trust and cosigned by witnesses you pinned).',
    doesNotEstablish: PASS_DOES_NOT_ESTABLISH,
  };
  const receipt = asObject(doc);
  const proof = asObject(receipt?.proof);
  const entry = asObject(proof?.entry);
  const anchor = asObject(proof?.anchor);
  const head = asObject(anchor?.head);
  report.receipt_id = asString(receipt?.receipt_id);
  if (receipt === undefined || receipt.proof === null || receipt.proof === undefined) {
    sink.add(
      'proof_missing',
      null,
      'the receipt carries no proof: read it again with ?proof=true after the next anchor',
    );
    return finish(report, sink);
  }
  const leafIndex = asSafeInteger(proof?.leaf_index);
  const treeSize = asSafeInteger(proof?.tree_size);
  const path = Array.isArray(proof?.audit_path) ? proof.audit_path.map(asHash) : undefined;
  if (
    entry === undefined ||
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
  report.sequence = asSafeInteger(entry.sequence);
  report.tree_size = treeSize;
  for (const field of SHARED) {
    if (JSON.stringify(receipt[field]) !== JSON.stringify(entry[field])) {
      sink.add('receipt_entry_mismatch', null, `the receipt's ${field} differs from its entry line's`);
    }
  }
  const leaf = checkLeaf(report, sink, entry, crypto);
  if (report.sequence !== leafIndex + 1) {
    sink.add('proof_malformed', null, `leaf_index ${leafIndex} is not the entry's sequence - 1`);
  }
  if (asSafeInteger(head.tree_size) !== treeSize) {
    sink.add('proof_malformed', null, `tree_size ${treeSize} is not the head's`);
  }
  const root = asHash(head.root_hash);
  if (
    leaf !== undefined &&
    root !== undefined &&
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
  const tenant = asString(entry.tenant_id);
  if (tenant !== undefined && tenant !== '' && asString(head.log_id) !== logIdFor(tenant, crypto.sha256)) {
    sink.add('log_id_mismatch', null, `the head's log_id is not tenant ${tenant}'s log`);
  }
  checkTreeHead(state, 0, head, 'head', asString(anchor?.key_id));
  report.timestamp = await checkTimestamp(
    { crypto, sink, tsaRoots: state.attestation.tsaRoots },
    0,
    asObject(anchor?.timestamp),
    head,
  );
  report.witnesses = tallyWitnesses(
    { crypto, sink, pins: state.attestation.pins, logKeys: trustedKeys },
    0,
    head,
    anchor?.witnesses,
  );
  const required = state.attestation.requireWitnesses;
  if (report.witnesses.independent < required) {
    sink.add(
      'witnesses_required',
      null,
      `${report.witnesses.independent} independent witnesses cosigned the head; ${required} are required`,
    );
  }
  return finish(report, sink);
}

/** The leaf from the published fields; a redacted entry's leaf cannot be recomputed and is taken as written (§7). */
function checkLeaf(
  report: ReceiptReport,
  sink: FindingSink,
  entry: JsonObject,
  crypto: CryptoProvider,
): Uint8Array | undefined {
  const written = asHash(entry.leaf);
  const tombstone = asObject(entry.tombstone);
  const sequence = asSafeInteger(entry.sequence);
  const from = asSafeInteger(tombstone?.from_sequence);
  const to = asSafeInteger(tombstone?.to_sequence);
  if (
    sequence !== undefined &&
    from !== undefined &&
    to !== undefined &&
    sequence >= from &&
    sequence <= to
  ) {
    report.redacted = true;
    report.notes.push(
      'the entry is redacted: its leaf cannot be recomputed and is taken as written; the proof still binds it',
    );
    return written;
  }
  let computed: Uint8Array;
  try {
    computed = entryLeaf(entry, crypto.sha256);
  } catch {
    sink.add('proof_malformed', null, 'the entry has no canonical form');
    return undefined;
  }
  if (written === undefined || !bytesEqual(written, computed)) {
    sink.add('leaf_mismatch', null, `the entry leaf is not H(preimage) (${encodeHex(computed)})`);
  }
  return computed;
}

function finish(report: ReceiptReport, sink: FindingSink): ReceiptReport {
  report.findings = [...sink.findings];
  report.result = sink.total === 0 ? 'pass' : 'fail';
  report.summary =
    report.result === 'pass'
      ? report.redacted
        ? 'pass, redacted entry'
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
