import { describe, expect, it } from 'vitest';
import { signCosignature } from '../../../src/evidence/cosignature.js';
import { encodeBase64, encodeHex } from '../../../src/evidence/encoding.js';
import { logIdFor } from '../../../src/evidence/log-id.js';
import { MerkleFrontier } from '../../../src/evidence/merkle-frontier.js';
import { consistencyProof } from '../../../src/evidence/merkle-tree.js';
import { ed25519Signer, nodeCrypto, sha256 } from '../../../src/evidence/node-crypto.js';
import { signTreeHead, unsignedTreeHead, type TreeHead } from '../../../src/evidence/tree-head.js';
import { verifyExport } from '../../../src/evidence/verify/index.js';
import { judgeCosignRequest } from '../../../src/evidence/witness-rules.js';
import {
  codesOf,
  editLine,
  joinLines,
  L,
  LOG_KEY,
  logPrivateKey,
  OTHER_KEY,
  otherPrivateKey,
  VECTOR_LINES,
  type Json,
} from './export-tamper.js';

const WITNESS = 'witness.example'; // the vector's second anchor carries its cosignature
const pin = (key: Uint8Array, id = WITNESS) => ({ id, key });
const run = (lines: readonly string[], opts: Record<string, unknown> = {}) =>
  verifyExport([joinLines(lines)], { publicKeys: [LOG_KEY], ...opts }, nodeCrypto);

/** Replace the second anchor's witnesses with cosignatures made by `signers`. */
function cosignedBy(signers: { id: string; key: typeof logPrivateKey; carry?: Uint8Array }[]): string[] {
  return editLine(VECTOR_LINES, L.anchor6, (line) => {
    const head = line.head as Json;
    const signedAt = '2026-01-01T00:00:00.000Z';
    return {
      ...line,
      witnesses: signers.map((s) => ({
        witness_id: s.id,
        ...(s.carry ? { public_key: encodeBase64(s.carry) } : {}),
        signature: signCosignature(head, signedAt, ed25519Signer(s.key)),
        signed_at: signedAt,
      })),
    };
  });
}

describe('verifier: witness cosignatures counted exactly as §6.2 says', () => {
  it('verifies a cosignature under the key pinned for its id, and counts it on the last anchor', async () => {
    const report = await run(VECTOR_LINES, { witnessKeys: [pin(OTHER_KEY)], requireWitnesses: 1 });
    expect(report.findings).toEqual([]);
    expect(report.witnesses).toMatchObject({
      verified: 1,
      unpinned: 0,
      notCounted: 0,
      lastAnchorIndependent: 1,
    });
    expect(report.notes).toContain('1 independent witness cosigned the last anchor (tree_size 6)');
  });

  it('fails a cosignature that does not verify under its pinned key (a mismatched pin)', async () => {
    const report = await run(VECTOR_LINES, { witnessKeys: [pin(LOG_KEY)], requireWitnesses: 1 });
    expect(codesOf(report)).toEqual(['witness_signature_invalid', 'witnesses_required']);
    expect(report.witnesses.lastAnchorIndependent).toBe(0);
  });

  it('does not count a witness holding the log key, nor a carried key other than the pinned one', async () => {
    const logSigned = await run(cosignedBy([{ id: WITNESS, key: logPrivateKey }]), {
      witnessKeys: [pin(LOG_KEY)],
      requireWitnesses: 1,
    });
    expect(codesOf(logSigned)).toEqual(['witnesses_required']);
    expect(logSigned.witnesses).toMatchObject({ verified: 1, notCounted: 1, lastAnchorIndependent: 0 });
    const carried = await run(cosignedBy([{ id: WITNESS, key: otherPrivateKey, carry: LOG_KEY }]), {
      witnessKeys: [pin(OTHER_KEY)],
    });
    expect(carried.result).toBe('pass');
    expect(carried.witnesses).toMatchObject({ verified: 1, notCounted: 1, lastAnchorIndependent: 0 });
  });

  it('counts each key and each id once', async () => {
    const twice = cosignedBy([
      { id: WITNESS, key: otherPrivateKey },
      { id: WITNESS, key: otherPrivateKey },
      { id: 'alias', key: otherPrivateKey },
    ]);
    const report = await run(twice, {
      witnessKeys: [pin(OTHER_KEY), pin(OTHER_KEY, 'alias')],
      requireWitnesses: 2,
    });
    expect(report.witnesses).toMatchObject({ verified: 3, notCounted: 2, lastAnchorIndependent: 1 });
    expect(codesOf(report)).toEqual(['witnesses_required']);
  });

  it('judges the last anchor: a cosignature carried by another anchor does not satisfy it', async () => {
    // Cosigned only on the first anchor: the last one has none.
    const early = editLine(
      editLine(VECTOR_LINES, L.anchor3, (line) => ({
        ...line,
        witnesses: (JSON.parse(VECTOR_LINES[L.anchor6]!) as Json).witnesses,
      })),
      L.anchor6,
      (line) => Object.fromEntries(Object.entries(line).filter(([k]) => k !== 'witnesses')),
    );
    const report = await run(early, { witnessKeys: [pin(OTHER_KEY)], requireWitnesses: 1 });
    // The first anchor's cosignature is over the second anchor's head: it does not verify there.
    expect(codesOf(report)).toEqual(['witness_signature_invalid', 'witnesses_required']);
  });

  it('refuses unusable pins before reading a byte', async () => {
    await expect(run(VECTOR_LINES, { witnessKeys: [pin(new Uint8Array(31))] })).rejects.toThrow(
      /pinned key refused/,
    );
    await expect(run(VECTOR_LINES, { witnessKeys: [pin(OTHER_KEY), pin(LOG_KEY)] })).rejects.toThrow(
      /two different keys/,
    );
    await expect(run(VECTOR_LINES, { requireWitnesses: -1 })).rejects.toThrow(/required witnesses/);
    await expect(run(VECTOR_LINES, { tsaRoots: [new Uint8Array([1, 2, 3])] })).rejects.toThrow(/trust root/);
  });
});

describe('what a witness cosigns (judgeCosignRequest)', () => {
  const logId = logIdFor('acme', sha256);
  const sign = ed25519Signer(logPrivateKey);
  const data = Array.from({ length: 20 }, (_, i) => sha256(Uint8Array.of(i)));
  const headAt = (size: number, at = '2026-01-01T00:00:00.000Z'): TreeHead => {
    const f = new MerkleFrontier(sha256);
    data.slice(0, size).forEach((d) => f.append(d));
    return signTreeHead(unsignedTreeHead(logId, size, f.root(), at), sign);
  };
  const proof = (from: number, to: number) =>
    consistencyProof(data.slice(0, to), from, sha256).map(encodeHex);
  const judge = (last: TreeHead | undefined, head: TreeHead, p: string[], key: Uint8Array = LOG_KEY) =>
    judgeCosignRequest(logId, key, last, head, p, nodeCrypto);

  it('takes the first head without a proof, then only consistent extensions', () => {
    expect(judge(undefined, headAt(5), [])).toEqual({ ok: true, unchanged: false });
    expect(judge(headAt(5), headAt(12), proof(5, 12))).toEqual({ ok: true, unchanged: false });
    expect(judge(headAt(5), headAt(5, '2026-02-01T00:00:00.000Z'), [])).toEqual({
      ok: true,
      unchanged: true,
    });
  });

  it('refuses rollback, fork, a bad proof, another log and a bad signature', () => {
    const code = (v: ReturnType<typeof judge>) => (v.ok ? 'ok' : v.code);
    expect(code(judge(headAt(12), headAt(5), []))).toBe('rollback');
    const other = { ...headAt(12), root_hash: 'ab'.repeat(32) };
    expect(code(judge(headAt(12), signTreeHead({ ...other, signature: undefined } as never, sign), []))).toBe(
      'fork',
    );
    expect(code(judge(headAt(5), headAt(12), proof(6, 12)))).toBe('bad_proof');
    expect(code(judge(headAt(5), headAt(12), []))).toBe('bad_proof');
    expect(code(judge(headAt(5), headAt(12), ['zz']))).toBe('bad_proof');
    expect(code(judge(undefined, headAt(5), proof(3, 5)))).toBe('bad_proof');
    expect(code(judge(undefined, { ...headAt(5), log_id: logIdFor('other', sha256) }, []))).toBe('wrong_log');
    expect(code(judge(undefined, headAt(5), [], OTHER_KEY))).toBe('bad_signature');
    expect(code(judge(undefined, { ...headAt(5), tree_size: 6 }, []))).toBe('bad_signature');
  });
});
