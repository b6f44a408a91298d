import type { CryptoProvider } from '../crypto-provider.js';
import { checkAnchor } from './anchor-check.js';
import { checkEntry } from './entry-check.js';
import { FindingSink } from './findings.js';
import { checkHeader, checkHeaderHead } from './header-check.js';
import { inspectLine, type InspectedLine } from './line-inspector.js';
import { readLines, type ExportSource } from './line-reader.js';
import { buildReport, type VerificationReport } from './report.js';
import { newVerifierState, type VerifierState } from './state.js';
import { parseTsaRoots } from '../timestamp/token-check.js';
import { pinnedWitnessesFrom, trustedKeysFrom, type TrustOptions } from './trust.js';

export interface VerifyOptions extends TrustOptions {
  /** Findings kept in the report; more are counted in findingsOmitted. Default 1000. */
  maxFindings?: number;
}

/**
 * The cross-line half of verification: takes inspected lines in file order and keeps the
 * O(log n) state (chain, frontier, sequence, open redaction ranges) between them. The
 * per-line half (inspectLine) holds no state, so the two meet only through InspectedLine.
 */
class ExportVerifier {
  private readonly state: VerifierState;

  /** Throws when the caller's own options are unusable (no trusted key, a malformed key). */
  constructor(options: VerifyOptions, crypto: CryptoProvider) {
    const trustedKeys = trustedKeysFrom(options, crypto.sha256);
    const sink = new FindingSink(options.maxFindings ?? 1000);
    this.state = newVerifierState(crypto, trustedKeys, options.requireAnchors === true, sink, {
      tsaRoots: tsaRootsFrom(options),
      pins: pinnedWitnessesFrom(options),
      requireWitnesses: options.requireWitnesses ?? 0,
    });
  }

  /** Let token checks in flight finish; anchors are rare, so this is almost always a no-op. */
  async settle(): Promise<void> {
    const { pending } = this.state;
    while (pending.length > 0) await pending.shift();
  }

  consume(line: InspectedLine): void {
    const { state } = this;
    state.counts.lines += 1;
    state.sink.addAll(line.findings);
    if (line.kind === 'entry' && line.entry !== undefined) checkEntry(state, line.number, line.entry);
    else if (line.kind === 'header' && line.value !== undefined) checkHeader(state, line.number, line.value);
    else if (line.kind === 'anchor' && line.value !== undefined) checkAnchor(state, line.number, line.value);
  }

  finish(): VerificationReport {
    const { state } = this;
    checkHeaderPresent(state);
    checkHeaderHead(state);
    checkAnchoring(state);
    checkWitnessRequirement(state);
    state.redactions.finish();
    return buildReport(state);
  }
}

/**
 * Verify an `svc.export/v1` file offline (evidence-format.md §1-§9) under trust given out
 * of band. Streams: one line in memory at a time, the tree as a frontier. Bad input never
 * throws; it becomes findings, and every finding fails the export. Throws only when the
 * caller's own options are unusable (no trusted key, a malformed key).
 */
export async function verifyExport(
  source: ExportSource,
  options: VerifyOptions,
  crypto: CryptoProvider,
): Promise<VerificationReport> {
  const verifier = new ExportVerifier(options, crypto);
  for await (const raw of readLines(source)) {
    verifier.consume(inspectLine(raw, crypto.sha256));
    await verifier.settle();
  }
  return verifier.finish();
}

function checkHeaderPresent(state: VerifierState): void {
  if (state.header !== undefined) return;
  const empty = state.counts.lines === 0;
  state.sink.add(
    'header_missing',
    empty ? null : 1,
    empty ? 'the file is empty' : 'line 1 is not a header line',
  );
}

/** §6 pre_anchor and the anchors that point past the file's end. */
function checkAnchoring(state: VerifierState): void {
  const { sink, counts, header, furthestAnchor } = state;
  if (furthestAnchor !== undefined && furthestAnchor.treeSize > counts.entries) {
    sink.add(
      'anchor_beyond_entries',
      furthestAnchor.line,
      `anchor tree_size ${furthestAnchor.treeSize} exceeds the ${counts.entries} entries in the file`,
    );
  }
  // pre_anchor lives in the header; without one, header_missing already says the file fails.
  if (header === undefined) return;
  if (counts.anchors > 0) {
    if (header.preAnchor) {
      sink.add(
        'pre_anchor_conflict',
        header.line,
        `pre_anchor is true but the file has ${counts.anchors} anchor lines`,
      );
    }
    return;
  }
  if (!header.preAnchor) {
    sink.add('anchor_missing', header.line, 'the file has no anchor line and pre_anchor is not true');
  } else if (state.requireAnchors) {
    sink.add(
      'anchors_required',
      header.line,
      'a pre-anchor export (no anchors, timestamps or witnesses) while anchors are required',
    );
  }
}

function tsaRootsFrom(options: TrustOptions): ReturnType<typeof parseTsaRoots> {
  try {
    return parseTsaRoots(options.tsaRoots ?? []);
  } catch (err) {
    throw new TypeError(`a timestamp trust root is not a DER X.509 certificate: ${(err as Error).message}`);
  }
}

/** §6.2 --require-witnesses: independent cosignatures of the last anchor, by tree size. */
function checkWitnessRequirement(state: VerifierState): void {
  const required = state.attestation.requireWitnesses;
  if (required <= 0) return;
  const last = state.lastAnchorWitnesses;
  const got = last?.independent ?? 0;
  if (got >= required) return;
  state.sink.add(
    'witnesses_required',
    last?.line ?? state.header?.line ?? null,
    last === undefined
      ? `no anchor to be cosigned; ${required} independent witnesses are required`
      : `${got} independent witnesses cosigned the last anchor (tree_size ${last.treeSize}); ${required} are required`,
  );
}
