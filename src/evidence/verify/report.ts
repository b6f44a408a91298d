import type { Finding } from './findings.js';
import type { VerifierState } from './state.js';

/** §9, printed with every result: what a pass establishes. */
export const PASS_ESTABLISHES =
  'A pass establishes integrity under the given trust configuration: these entries, in this order, ' +
  'under heads signed by a key you trust (and, where reported, timestamped by an authority you trust ' +
  'and cosigned by witnesses you pinned).';

/** §9, printed with every result: what a pass does not establish. */
export const PASS_DOES_NOT_ESTABLISH: readonly string[] = [
  'complete capture: an action that never went through the daemon leaves no entry',
  'downstream success: a grant is authorization, not proof of execution; amount_usd is an estimate committed at admission',
  'the independence of an operator who holds the signing key: only pinned witnesses and a trusted timestamp authority speak to that',
];

export const PRE_ANCHOR_QUALIFIER = 'pre-anchor: no anchors, timestamps or witnesses';

export interface VerificationReport {
  result: 'pass' | 'fail';
  /** One line: "pass", "pass with redactions (…)", "pass, pre-anchor: …", "fail (N findings)". */
  summary: string;
  /** What limits a pass (redactions, pre-anchor); present on a fail too, for context. */
  qualifiers: string[];
  /** Material present in the file that this verifier did not check (timestamps, witnesses). */
  notes: string[];
  findings: Finding[];
  /** Findings beyond the kept maximum: counted, not listed. */
  findingsOmitted: number;
  counts: {
    lines: number;
    entries: number;
    anchors: number;
    redactedEntries: number;
    redactionRanges: number;
  };
  /** Per-anchor timestamp status (§6.1): verified only under --tsa-cert roots. */
  timestamps: { absent: number; noop: number; unverified: number; verified: number; invalid: number };
  /** Witness cosignatures (§6.2); `lastAnchorIndependent` is what --require-witnesses counts. */
  witnesses: {
    anchorsWithWitnesses: number;
    cosignatures: number;
    verified: number;
    unpinned: number;
    notCounted: number;
    lastAnchorIndependent: number;
    required: number;
  };
  trustedKeyIds: string[];
  /** Key ids the file names as signers that were not trusted (at most 16): pin them too. */
  missingKeyIds: string[];
  establishes: string;
  doesNotEstablish: readonly string[];
}

const plural = (n: number, one: string, many: string): string => `${n} ${n === 1 ? one : many}`;

export function buildReport(state: VerifierState): VerificationReport {
  const { sink, redactions, counts, timestamps, witnesses } = state;
  const result = sink.total === 0 ? 'pass' : 'fail';
  const redaction =
    redactions.redactedEntries > 0
      ? `with redactions (${plural(redactions.redactedEntries, 'entry', 'entries')} in ${plural(redactions.ranges, 'range', 'ranges')})`
      : undefined;
  const preAnchor =
    counts.anchors === 0 && state.header?.preAnchor === true ? PRE_ANCHOR_QUALIFIER : undefined;
  const qualifiers = [redaction, preAnchor].filter((q): q is string => q !== undefined);

  const notes = attestationNotes(state);

  const summary =
    result === 'fail'
      ? `fail (${plural(sink.total, 'finding', 'findings')})`
      : `pass${redaction ? ` ${redaction}` : ''}${preAnchor ? `, ${preAnchor}` : ''}`;
  return {
    result,
    summary,
    qualifiers,
    notes,
    // Stream order within a line, by line overall; file-level findings (null) first.
    findings: [...sink.findings].sort((a, b) => (a.line ?? 0) - (b.line ?? 0)),
    findingsOmitted: sink.omitted,
    counts: {
      lines: counts.lines,
      entries: counts.entries,
      anchors: counts.anchors,
      redactedEntries: redactions.redactedEntries,
      redactionRanges: redactions.ranges,
    },
    timestamps: { ...timestamps },
    witnesses: {
      anchorsWithWitnesses: witnesses.anchors,
      cosignatures: witnesses.cosignatures,
      verified: witnesses.verified,
      unpinned: witnesses.unpinned,
      notCounted: witnesses.notCounted,
      lastAnchorIndependent: state.lastAnchorWitnesses?.independent ?? 0,
      required: state.attestation.requireWitnesses,
    },
    trustedKeyIds: state.trustedKeys.map((key) => key.keyId),
    missingKeyIds: [...state.untrustedKeyIds],
    establishes: PASS_ESTABLISHES,
    doesNotEstablish: PASS_DOES_NOT_ESTABLISH,
  };
}

/** What the file holds that speaks to time and independence, and how far it was checked. */
function attestationNotes(state: VerifierState): string[] {
  const { timestamps, witnesses } = state;
  const notes: string[] = [];
  if (timestamps.verified > 0) {
    notes.push(
      `${plural(timestamps.verified, 'timestamp', 'timestamps')} verified under the given --tsa-cert roots`,
    );
  }
  if (timestamps.unverified > 0) {
    notes.push(
      `${plural(timestamps.unverified, 'timestamp', 'timestamps')} present, not verified (no --tsa-cert roots given)`,
    );
  }
  if (timestamps.noop > 0) {
    const what = timestamps.noop === 1 ? 'a placeholder' : 'placeholders';
    notes.push(
      `${plural(timestamps.noop, 'noop timestamp', 'noop timestamps')}: ${what}, not third-party attestation`,
    );
  }
  if (witnesses.unpinned > 0) {
    notes.push(
      `${plural(witnesses.unpinned, 'witness cosignature', 'witness cosignatures')} present, not verified (no --witness-key pinned for their ids)`,
    );
  }
  if (witnesses.notCounted > 0) {
    notes.push(
      `${plural(witnesses.notCounted, 'verified cosignature', 'verified cosignatures')} not counted as independent (a log key, a repeated witness, or a carried key other than the pinned one)`,
    );
  }
  if (witnesses.verified > 0 || state.attestation.requireWitnesses > 0) {
    const last = state.lastAnchorWitnesses;
    notes.push(
      last === undefined
        ? 'no anchor, so no witness cosigned the log'
        : `${plural(last.independent, 'independent witness', 'independent witnesses')} cosigned the last anchor (tree_size ${last.treeSize})`,
    );
  }
  return notes;
}
