import { bytesEqual } from '../bytes.js';
import { asHash, asObject, asSafeInteger, asString, type JsonObject } from './field-readers.js';
import { checkTreeHead } from './head-check.js';
import { noteUntrustedKeyId, type VerifierState } from './state.js';
import { checkTimestamp } from './timestamp-check.js';
import { tallyWitnesses } from './witness-check.js';

/**
 * One anchor line (§6): where it stands, what it covers, who signed it, when an authority
 * says it existed (§6.1, timestamp-check.ts) and which witnesses cosigned it (§6.2,
 * witness-check.ts). Timestamps verify only under --tsa-cert roots, cosignatures only under
 * pinned witness keys: nothing in the file vouches for itself.
 */
export function checkAnchor(state: VerifierState, at: number, anchor: JsonObject): void {
  state.counts.anchors += 1;
  const head = asObject(anchor.head);
  if (head !== undefined) {
    checkCoverage(state, at, head);
    const keyId = asString(anchor.key_id);
    const key = checkTreeHead(state, at, head, 'anchor head', keyId);
    checkKeyNaming(state, at, keyId, key?.keyId, asString(anchor.algorithm));
  }
  checkAnchorTimestamp(state, at, asObject(anchor.timestamp), head);
  checkAnchorWitnesses(state, at, head, anchor.witnesses);
  state.previousKind = 'anchor';
}

/** Placement, order, size and root. The root is checkable only where the anchor stands right. */
function checkCoverage(state: VerifierState, at: number, head: JsonObject): void {
  const { sink, frontier } = state;
  const treeSize = asSafeInteger(head.tree_size);
  if (treeSize === undefined) return;
  if (treeSize < 1) {
    sink.add('anchor_empty_tree', at, 'anchor over the empty tree (tree_size 0) commits to nothing');
    return;
  }
  if (treeSize <= state.lastAnchorTreeSize) {
    sink.add(
      'anchor_out_of_order',
      at,
      `anchor tree_size ${treeSize} does not increase on the previous anchor's ${state.lastAnchorTreeSize}`,
    );
  }
  state.lastAnchorTreeSize = Math.max(state.lastAnchorTreeSize, treeSize);
  if (treeSize > (state.furthestAnchor?.treeSize ?? 0)) state.furthestAnchor = { line: at, treeSize };

  if (state.previousKind !== 'entry' || treeSize !== frontier.size) {
    const after =
      state.previousKind === undefined
        ? 'the start of the file'
        : `${state.previousKind === 'header' ? 'a' : 'an'} ${state.previousKind} line`;
    sink.add(
      'anchor_misplaced',
      at,
      `anchor for tree_size ${treeSize} follows ${after} with ${frontier.size} entries before it; it must stand right after entry ${treeSize} (root not checked)`,
    );
    return;
  }
  const root = asHash(head.root_hash);
  if (root !== undefined && !bytesEqual(root, frontier.root())) {
    sink.add(
      'anchor_root_mismatch',
      at,
      `anchor root_hash is not the root over the first ${treeSize} leaves`,
    );
  }
}

/** key_id and algorithm, when present, must name the key that verified and ed25519 (§6). */
export function checkKeyNaming(
  state: VerifierState,
  at: number,
  keyId: string | undefined,
  verifiedBy: string | undefined,
  algorithm: string | undefined,
): void {
  const { sink } = state;
  if (algorithm !== undefined && algorithm !== 'ed25519') {
    sink.add('algorithm_unsupported', at, `anchor algorithm ${JSON.stringify(algorithm)} is not ed25519`);
  }
  if (keyId === undefined) return;
  if (verifiedBy !== undefined && keyId !== verifiedBy) {
    sink.add(
      'key_id_mismatch',
      at,
      `anchor key_id ${keyId} does not name the key that signed it (${verifiedBy})`,
    );
  } else if (verifiedBy === undefined && !state.trustedKeys.some((key) => key.keyId === keyId)) {
    noteUntrustedKeyId(state, keyId);
    sink.add(
      'key_id_mismatch',
      at,
      `anchor key_id ${keyId} names no trusted key: pass that key's public key with --public-key (obtained out of band, as every trusted key is)`,
    );
  }
}

/** §6.1: the anchor's timestamp status; a token check against roots settles before the next line. */
function checkAnchorTimestamp(
  state: VerifierState,
  at: number,
  timestamp: JsonObject | undefined,
  head: JsonObject | undefined,
): void {
  const ctx = { crypto: state.crypto, sink: state.sink, tsaRoots: state.attestation.tsaRoots };
  const status = checkTimestamp(ctx, at, timestamp, head);
  if (typeof status === 'string') state.timestamps[status] += 1;
  else state.pending.push(status.then((settled) => (state.timestamps[settled] += 1)));
}

/** §6.2: verify what is pinned, count what is independent, remember the last anchor's count. */
function checkAnchorWitnesses(
  state: VerifierState,
  at: number,
  head: JsonObject | undefined,
  witnesses: unknown,
): void {
  const hasWitnesses = Array.isArray(witnesses) && witnesses.length > 0;
  if (hasWitnesses) state.witnesses.anchors += 1;
  const tally =
    head === undefined
      ? undefined
      : tallyWitnesses(
          {
            crypto: state.crypto,
            sink: state.sink,
            pins: state.attestation.pins,
            logKeys: state.trustedKeys,
          },
          at,
          head,
          witnesses,
        );
  if (tally !== undefined) {
    state.witnesses.cosignatures += tally.cosignatures;
    state.witnesses.verified += tally.verified;
    state.witnesses.unpinned += tally.unpinned;
    state.witnesses.notCounted += tally.notCounted;
  }
  const treeSize = asSafeInteger(head?.tree_size);
  if (treeSize !== undefined && treeSize >= (state.lastAnchorWitnesses?.treeSize ?? 0)) {
    state.lastAnchorWitnesses = { line: at, treeSize, independent: tally?.independent ?? 0 };
  }
}
