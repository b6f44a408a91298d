import { generateKeyPairSync } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { signHead, type AnchorOps, type HeadSigner, type StoredHead } from '../../../src/core/anchor.js';
import { runSync } from '../../../src/core/use-case.js';
import { encodeHex } from '../../../src/evidence/encoding.js';
import type { LogState } from '../../../src/evidence/journal-entry.js';
import { MerkleFrontier } from '../../../src/evidence/merkle-frontier.js';
import { treeHash } from '../../../src/evidence/merkle-tree.js';
import { ed25519Signer, nodeCrypto, sha256 } from '../../../src/evidence/node-crypto.js';
import { verifyTreeHead } from '../../../src/evidence/tree-head.js';
import { codedError } from '../../helpers/coded-error.js';

const AT = '2026-03-01T10:00:00.000Z';
const keys = generateKeyPairSync('ed25519');
const signer: HeadSigner = { keyId: 'k1', sign: ed25519Signer(keys.privateKey) };
const publicKey = new Uint8Array(keys.publicKey.export({ format: 'der', type: 'spki' }).subarray(-32));

const leaves = (n: number) => Array.from({ length: n }, (_, i) => sha256(new Uint8Array([i])));

function logOf(n: number): LogState {
  const frontier = new MerkleFrontier(sha256);
  for (const leaf of leaves(n)) frontier.append(leaf);
  return { size: n, chainHash: '00'.repeat(32), frontier: frontier.state() };
}

/** An in-memory journal and anchors table: the one head per (tenant, size) the tables key on. */
function memory(state: LogState | undefined, heads: StoredHead[] = []) {
  const inserted: StoredHead[] = [];
  const ops: AnchorOps = {
    journalHead: () => state && { state, signed: heads.find((h) => h.head.tree_size === state.size) },
    insertHead: (anchor) => {
      if (heads.some((h) => h.head.tree_size === anchor.head.tree_size)) return 0;
      heads.push(anchor);
      inserted.push(anchor);
      return 1;
    },
  };
  return { ops, inserted };
}

describe('signHead: the anchoring use case, once for both stores', () => {
  it('signs the head over everything the journal holds and stores it once', () => {
    const { ops, inserted } = memory(logOf(5));
    const { anchor, created } = runSync(signHead('acme', signer, AT), ops);
    expect(created).toBe(true);
    expect(anchor).toMatchObject({ tenantId: 'acme', keyId: 'k1', algorithm: 'ed25519' });
    expect(anchor.head).toMatchObject({ tree_size: 5, index: 5, signed_at: AT });
    expect(anchor.head.root_hash).toBe(encodeHex(treeHash(leaves(5), sha256)));
    expect(verifyTreeHead(anchor.head, publicKey, nodeCrypto)).toBe(true);
    expect(inserted).toEqual([anchor]);
  });

  it('gives back the head already stored at this size, and stores nothing', () => {
    const first = memory(logOf(3));
    const stored = runSync(signHead('acme', signer, AT), first.ops).anchor;
    const again = memory(logOf(3), [stored]);
    expect(runSync(signHead('acme', signer, '2026-03-02T00:00:00.000Z'), again.ops)).toEqual({
      anchor: stored,
      created: false,
    });
    expect(again.inserted).toEqual([]);
  });

  it('refuses an empty journal, with or without a state row: a head over nothing commits to nothing', () => {
    for (const state of [
      undefined,
      { size: 0, chainHash: '00'.repeat(32), frontier: { size: 0, nodes: [] } },
    ]) {
      const { ops, inserted } = memory(state);
      const err = codedError(() => runSync(signHead('acme', signer, AT), ops));
      expect(err.kind).toBe('conflict');
      expect(err.message).toBe('the journal of tenant acme is empty: there is no head to sign');
      expect(inserted).toEqual([]);
    }
  });

  it('never signs over a journal that no longer matches its signed head at that size', () => {
    const other = runSync(signHead('acme', signer, AT), memory(logOf(4)).ops).anchor;
    const forged: StoredHead = { ...other, head: { ...other.head, root_hash: 'ab'.repeat(32) } };
    const { ops, inserted } = memory(logOf(4), [forged]);
    const err = codedError(() => runSync(signHead('acme', signer, AT), ops));
    expect(err.kind).toBe('internal');
    expect(err.message).toBe('the journal of tenant acme no longer matches its signed head at size 4');
    expect(inserted).toEqual([]);
  });

  it('fails with a coded conflict when a head appeared at the size between the read and the insert', () => {
    const racer = runSync(signHead('acme', signer, AT), memory(logOf(2)).ops).anchor;
    const heads: StoredHead[] = [];
    const { ops } = memory(logOf(2), heads);
    // The read finds no head; another writer stores one before this insert runs.
    const raced: AnchorOps = {
      ...ops,
      insertHead: (anchor) => {
        heads.push(racer);
        return ops.insertHead(anchor);
      },
    };
    const err = codedError(() => runSync(signHead('acme', signer, AT), raced));
    expect(err.kind).toBe('conflict');
    expect(err.message).toBe(
      'the head of tenant acme at size 2 changed 0 rows, not one: the state it was decided on no longer holds; retry',
    );
    expect(heads).toEqual([racer]);
  });
});
