import type { CryptoProvider } from '../crypto-provider.js';
import type { LineKind } from '../export-line.js';
import { MerkleFrontier } from '../merkle-frontier.js';
import type { FindingSink } from './findings.js';
import { RedactionTracker } from './redaction-tracker.js';
import type * as pkijs from 'pkijs';
import type { TimestampStatus } from './timestamp-check.js';
import type { PinnedWitness, TrustedKey } from './trust.js';

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
  timestamps: Record<TimestampStatus, number>;
  witnesses: {
    anchors: number;
    cosignatures: number;
    verified: number;
    unpinned: number;
    notCounted: number;
  };
  /** Trust for §6.1 and §6.2, given out of band. */
  readonly attestation: AttestationTrust;
  /** Independent cosignatures of the anchor with the largest tree size so far. */
  lastAnchorWitnesses?: { line: number; treeSize: number; independent: number };
  /** Token checks in flight (WebCrypto is asynchronous); settled before the next line. */
  pending: Promise<unknown>[];
  /**
   * Key ids the file says signed its heads that are not among the trusted keys: what the
   * auditor is missing. Bounded, since a forged file could name a new id on every line.
   */
  untrustedKeyIds: string[];
}

export interface AttestationTrust {
  tsaRoots: readonly pkijs.Certificate[];
  pins: ReadonlyMap<string, PinnedWitness>;
  requireWitnesses: number;
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
  attestation: AttestationTrust = { tsaRoots: [], pins: new Map(), requireWitnesses: 0 },
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
    timestamps: { absent: 0, noop: 0, unverified: 0, verified: 0, invalid: 0 },
    witnesses: { anchors: 0, cosignatures: 0, verified: 0, unpinned: 0, notCounted: 0 },
    attestation,
    pending: [],
    untrustedKeyIds: [],
  };
}
