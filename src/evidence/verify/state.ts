import type { CryptoProvider } from '../crypto-provider.js';
import type { LineKind } from '../export-line.js';
import { MerkleFrontier } from '../merkle-frontier.js';
import type { FindingSink } from './findings.js';
import { RedactionTracker } from './redaction-tracker.js';
import type { TrustedKey } from './trust.js';

/** What the header claims, kept for the checks that can only run at the end of the file. */
export interface HeaderFacts {
  line: number;
  tenantId?: string;
  /** Derived from tenantId (§2), never read from the file. */
  logId?: string;
  entryCount?: number;
  headTreeSize?: number;
  headRoot?: Uint8Array;
  preAnchor: boolean;
}

/** Everything the streaming checks carry from line to line: O(log n) plus open redaction ranges. */
export interface VerifierState {
  readonly crypto: CryptoProvider;
  readonly trustedKeys: readonly TrustedKey[];
  readonly requireAnchors: boolean;
  readonly sink: FindingSink;
  readonly frontier: MerkleFrontier;
  readonly redactions: RedactionTracker;
  header?: HeaderFacts;
  /** The previous chain value; undefined until known (no header, so no genesis). */
  chain?: Uint8Array;
  nextSequence: number;
  previousKind?: LineKind;
  lastAnchorTreeSize: number;
  furthestAnchor?: { line: number; treeSize: number };
  counts: { lines: number; entries: number; anchors: number };
  timestamps: { absent: number; noop: number; unverified: number };
  witnesses: { anchors: number; cosignatures: number };
  /**
   * Key ids the file says signed its heads that are not among the trusted keys: what the
   * auditor is missing. Bounded, since a forged file could name a new id on every line.
   */
  untrustedKeyIds: string[];
}

export const MAX_UNTRUSTED_KEY_IDS = 16;

/** Remember a key id the file names but the caller did not trust (bounded). */
export function noteUntrustedKeyId(state: VerifierState, keyId: string): void {
  if (state.trustedKeys.some((key) => key.keyId === keyId)) return;
  if (state.untrustedKeyIds.includes(keyId) || state.untrustedKeyIds.length >= MAX_UNTRUSTED_KEY_IDS) return;
  state.untrustedKeyIds.push(keyId);
}

export function newVerifierState(
  crypto: CryptoProvider,
  trustedKeys: readonly TrustedKey[],
  requireAnchors: boolean,
  sink: FindingSink,
): VerifierState {
  return {
    crypto,
    trustedKeys,
    requireAnchors,
    sink,
    frontier: new MerkleFrontier(crypto.sha256),
    redactions: new RedactionTracker(sink),
    nextSequence: 1,
    lastAnchorTreeSize: 0,
    counts: { lines: 0, entries: 0, anchors: 0 },
    timestamps: { absent: 0, noop: 0, unverified: 0 },
    witnesses: { anchors: 0, cosignatures: 0 },
    untrustedKeyIds: [],
  };
}
