import type { CryptoProvider } from '../crypto-provider.js';
import { bytesEqual } from '../bytes.js';
import { encodeHex } from '../encoding.js';
import { entryLeaf } from '../entry.js';
import { logIdFor } from '../log-id.js';
import { verifyInclusion } from '../merkle-proof.js';
import { leafHash } from '../merkle-tree.js';
import { parseTsaRoots } from '../timestamp/token-check.js';
import { redactionDeviations } from '../tombstone.js';
import { checkKeyNaming } from './anchor-check.js';
import { asHash, asObject, asSafeInteger, asString, type JsonObject } from './field-readers.js';
import { FindingSink, type Finding } from './findings.js';
import { checkTreeHead } from './head-check.js';
import { checkSchemaOfKind } from './line-schema.js';
import { checkReceiptFields } from './receipt-fields.js';
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
 * What a redacted receipt cannot bind: the tombstone (its redaction record is not in the
 * proof), and so the times §7 sets to its removed_at.
 */
const REDACTED_UNBOUND = [
  'occurred_at',
  'linked_at',
  'proof.entry.tombstone',
  'proof.entry.occurred_at',
  'proof.entry.linked_at',
];

/** The entry field no receipt proof binds: the chain is an export's, a proof goes through the tree. */
const UNBOUND_ENTRY_FIELD = 'proof.entry.chain_hash';

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
  const leaf = checkLeaf(report, sink, entry, crypto);
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
    ...(report.redacted ? REDACTED_UNBOUND : []),
    UNBOUND_ENTRY_FIELD,
    ...unboundAttestation(anchor, report.timestamp, state.attestation.pins),
  ];
  return finish(report, sink);
}

/**
 * Anchor members that are declarations rather than checked claims: a timestamp that did not
 * verify under --tsa-cert roots (a noop placeholder, or a token nobody checked) and, when it
 * did, its authority and the exporter's `verified` note; a pinned witness's key_holder; and
 * every cosignature whose witness id has no pinned key.
 */
function unboundAttestation(
  anchor: JsonObject,
  timestamp: TimestampStatus,
  pins: ReadonlyMap<string, unknown>,
): string[] {
  const out: string[] = [];
  const stamp = asObject(anchor.timestamp);
  if (stamp !== undefined && timestamp !== 'verified') out.push('proof.anchor.timestamp');
  if (stamp !== undefined && timestamp === 'verified') {
    out.push('proof.anchor.timestamp.authority');
    if (Object.hasOwn(stamp, 'verified')) out.push('proof.anchor.timestamp.verified');
  }
  if (Array.isArray(anchor.witnesses)) {
    anchor.witnesses.forEach((item: unknown, i) => {
      const w = asObject(item);
      const id = asString(w?.witness_id);
      if (id === undefined || !pins.has(id)) out.push(`proof.anchor.witnesses[${i}]`);
      else if (w !== undefined && Object.hasOwn(w, 'key_holder'))
        out.push(`proof.anchor.witnesses[${i}].key_holder`);
    });
  }
  return out;
}

/**
 * The leaf the proof must lead from. A plain entry's leaf is recomputed from every field, so
 * the preimage binds them all. A redacted entry's leaf cannot be recomputed and is taken as
 * written (§7); then every field but the four kept must hold the fixed values
 * (`redactionDeviations`, the one definition the export verifier uses too), and the pass
 * proves position, not content.
 */
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
  if (tombstone !== undefined && sequence !== undefined && from !== undefined && to !== undefined) {
    if (from < 1 || from > to) {
      sink.add(
        'tombstone_malformed',
        null,
        `tombstone range ${from}..${to} is not 1 <= from_sequence <= to_sequence`,
      );
    } else if (sequence < from) {
      sink.add(
        'tombstone_below_range',
        null,
        `entry ${sequence} carries a tombstone for ${from}..${to}, above itself`,
      );
    } else if (sequence <= to) {
      report.redacted = true;
      report.proves = 'position';
      report.establishes = ESTABLISHES_POSITION;
      const leftIn = redactionDeviations(entry, tombstone);
      if (leftIn.length > 0) {
        sink.add(
          'redacted_content_present',
          null,
          `redacted entry ${sequence}: ${leftIn.join(', ')} not the value section 7 fixes (empty content, record_hash of 64 zeros, times equal to the tombstone's removed_at)`,
        );
      }
      report.notes.push(
        'the entry is redacted: its leaf cannot be recomputed and is taken as written, so the proof binds its position, not its content; its tombstone cannot be checked against its redaction record',
      );
      return written;
    }
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
