import { bytesEqual } from '../bytes.js';
import { decodeBase64, encodeHex, encodeUtf8 } from '../encoding.js';
import { headPayload } from '../tree-head.js';
import { asHash, asObject, asSafeInteger, asString, type JsonObject } from './field-readers.js';
import { checkTreeHead } from './head-check.js';
import { noteUntrustedKeyId, type VerifierState } from './state.js';

/**
 * One anchor line (§6): where it stands, what it covers, who signed it. Timestamps and
 * witness cosignatures are counted and their encodings checked, but not verified: RFC 3161
 * and witness checking come later, so the report never calls them verified.
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
  checkTimestamp(state, at, asObject(anchor.timestamp), head);
  checkWitnesses(state, at, anchor.witnesses);
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
function checkKeyNaming(
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

/** §6.1, the parts that need no trust roots: the digest binds the timestamp to this head. */
function checkTimestamp(
  state: VerifierState,
  at: number,
  timestamp: JsonObject | undefined,
  head: JsonObject | undefined,
): void {
  if (timestamp === undefined) {
    state.timestamps.absent += 1;
    return;
  }
  if (timestamp.noop === true) state.timestamps.noop += 1;
  else state.timestamps.unverified += 1;
  const token = asString(timestamp.token);
  if (token !== undefined && decodeBase64(token) === undefined) {
    state.sink.add('malformed_base64', at, 'timestamp token is not strict base64');
  }
  const digest = asString(timestamp.digest);
  if (digest === undefined || head === undefined) return;
  let expected: string;
  try {
    expected = encodeHex(state.crypto.sha256(encodeUtf8(headPayload(head))));
  } catch {
    return; // a lone surrogate, already reported
  }
  if (digest !== expected) {
    state.sink.add(
      'timestamp_digest_mismatch',
      at,
      `timestamp digest is not H(head_payload) of this anchor's head`,
    );
  }
}

function checkWitnesses(state: VerifierState, at: number, witnesses: unknown): void {
  if (!Array.isArray(witnesses) || witnesses.length === 0) return;
  state.witnesses.anchors += 1;
  witnesses.forEach((item: unknown, i) => {
    const witness = asObject(item);
    if (witness === undefined) return;
    state.witnesses.cosignatures += 1;
    for (const field of ['signature', 'public_key'] as const) {
      const value = asString(witness[field]);
      if (value !== undefined && decodeBase64(value) === undefined) {
        state.sink.add('malformed_base64', at, `witnesses/${i}/${field} is not strict base64`);
      }
    }
  });
}
