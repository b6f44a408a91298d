import { spawnSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ReceiptView } from '../../src/api/receipt.js';
import { nodeCrypto } from '../../src/evidence/node-crypto.js';
import { verifyReceipt, type ReceiptReport } from '../../src/evidence/verify/receipt-check.js';
import {
  RECEIPT_FIELDS_DERIVED,
  RECEIPT_FIELDS_FROM_ENTRY,
  RECEIPT_FIELDS_UNBOUND,
  RECEIPT_FIELDS_UNBOUND_LATER,
} from '../../src/evidence/verify/receipt-fields.js';
import { pathName, receiptMutations, type DocMutation } from '../helpers/receipt-mutations.js';
import { realReceipts, type Json, type ReceiptCase, type RealReceipts } from '../helpers/real-receipts.js';
import { tmpDir } from '../helpers/tmp.js';

type Doc = { [key: string]: Json };
const verify = (doc: Json, c: ReceiptCase) => verifyReceipt(doc, c.trust, nodeCrypto);
const codes = (r: ReceiptReport) => [...new Set(r.findings.map((f) => f.code))].sort();

/** Members whose absence §6 and §6.2 allow: they only name what the trust configuration already fixes. */
const OPTIONAL_NAMING = /^proof\.anchor\.(key_id|algorithm|witnesses\[\d+\]\.public_key)$/;

/**
 * Why a changed receipt may still pass, or undefined when it must fail. A receipt proof
 * binds one entry line to a signed head; what it cannot bind the report lists as
 * unverified, and an attestation taken away shows in the report as a lower status.
 */
function harmless(m: DocMutation, original: ReceiptReport, mutated: ReceiptReport): string | undefined {
  const name = pathName(m.path);
  const listed = [...original.unverified, ...mutated.unverified];
  if (listed.some((u) => name === u || name.startsWith(`${u}.`) || name.startsWith(`${u}[`)))
    return 'the report lists the field as unverified';
  if (m.kind === 'delete' && OPTIONAL_NAMING.test(name))
    return 'an optional name of the signer removed: the head still verifies under the trusted keys only';
  if (name === 'proof.anchor.timestamp' && mutated.timestamp === 'absent')
    return 'the timestamp removed: the report says absent';
  if (name === 'proof.anchor.witnesses' && mutated.witnesses.cosignatures < original.witnesses.cosignatures)
    return 'cosignatures removed: the report counts fewer';
  return undefined;
}

/**
 * A changed token or time that still verifies in full under the caller's root (CMS
 * signature, chain, imprint, and the time to the second, §6.1) proves what the genuine one
 * did. The suite meets one: a byte of the second copy of the TSA certificate that
 * `openssl ts` puts in the token's unsigned certificate set, which the check never uses.
 */
function stillVerifiedTimestamp(m: DocMutation, original: ReceiptReport, mutated: ReceiptReport): boolean {
  return (
    /^proof\.anchor\.timestamp\.(token|time)$/.test(pathName(m.path)) &&
    original.timestamp === 'verified' &&
    mutated.timestamp === 'verified'
  );
}

/** Returns whether the changed receipt passed (harmlessly). */
async function expectFailsUnlessHarmless(
  c: ReceiptCase,
  original: ReceiptReport,
  list: DocMutation[],
): Promise<boolean> {
  const doc = list.reduce<Json>((d, m) => m.apply(d), c.doc);
  const report = await verify(doc, c);
  const what = list.map((m) => m.what).join('; ');
  if (JSON.stringify(doc) === JSON.stringify(c.doc)) {
    expect(report.result, `${what}: unchanged, must pass`).toBe('pass');
    return false;
  }
  if (report.result === 'fail') return false;
  // A mutation that writes the value already there (tier 0 over 0) changes nothing by itself.
  const noop = (m: DocMutation) => JSON.stringify(m.apply(c.doc)) === JSON.stringify(c.doc);
  const reasons = list.map((m) =>
    noop(m)
      ? 'it leaves the receipt as it was'
      : stillVerifiedTimestamp(m, original, report)
        ? 'the timestamp still verifies'
        : harmless(m, original, report),
  );
  if (reasons.some((r) => r === undefined))
    throw new Error(
      `${c.name}: ${what} passed (${report.summary}; unverified: ${report.unverified.join(', ')})`,
    );
  // A harmless change never makes the report claim more than the genuine receipt did.
  expect(report).toMatchObject({
    sequence: original.sequence,
    tree_size: original.tree_size,
    redacted: original.redacted,
    proves: original.proves,
  });
  expect(report.witnesses.independent).toBeLessThanOrEqual(original.witnesses.independent);
  return true;
}

describe('svc verify receipt on mutated receipts (real daemon receipts, every field)', () => {
  let real: RealReceipts;
  const originals = new Map<string, ReceiptReport>();
  beforeAll(async () => {
    real = await realReceipts();
    for (const c of real.cases) originals.set(c.name, await verify(c.doc, c));
  }, 180_000);
  afterAll(async () => real?.close());

  it('every genuine receipt passes and says what it proves and what it does not', () => {
    expect(real.cases).toHaveLength(8);
    for (const c of real.cases) {
      const r = originals.get(c.name)!;
      expect(r.findings, c.name).toEqual([]);
      const redacted = c.name.startsWith('redacted');
      expect(r, c.name).toMatchObject({
        result: 'pass',
        redacted,
        proves: redacted ? 'position' : 'content',
        summary: redacted ? 'pass, redacted entry: proves position, not content' : 'pass',
      });
      expect(r.unverified, c.name).toEqual(
        expect.arrayContaining([
          'receipt_id',
          'outcome',
          'reason',
          'intent',
          'task_id',
          'proof.entry.chain_hash',
        ]),
      );
      if (redacted) expect(r.unverified).toEqual(expect.arrayContaining(['proof.entry.tombstone']));
      if (c.name.includes('verified')) expect(r.timestamp, c.name).toBe('verified');
      if (c.name.includes('noop')) expect(r.timestamp, c.name).toBe('noop');
      if (c.name.includes('pinned')) expect(r.witnesses.independent, c.name).toBe(1);
    }
  });

  it('the verifier knows exactly the fields the daemon publishes in a receipt', () => {
    const verifier = [
      ...RECEIPT_FIELDS_FROM_ENTRY,
      ...RECEIPT_FIELDS_DERIVED,
      ...Object.keys(RECEIPT_FIELDS_UNBOUND),
      ...Object.keys(RECEIPT_FIELDS_UNBOUND_LATER),
    ].sort();
    expect(verifier).toEqual(Object.keys(ReceiptView.shape).sort());
  });

  it('the forged receipt of the issue fails: a tombstone over its own sequence, content rewritten', async () => {
    for (const c of real.cases.filter((x) => x.name.startsWith('plain'))) {
      expect((await verify(c.doc, c)).result).toBe('pass');
      const forged = structuredClone(c.doc) as Doc & { proof: { entry: Doc } };
      const entry = forged.proof.entry;
      const s = entry.sequence as number;
      const rewrite: Doc = {
        actor_id: 'mallory',
        capability: 'payments.send',
        amount_usd: 5000,
        allowed: true,
        intent_id: 'int_forged',
        record_hash: 'ab'.repeat(32),
      };
      Object.assign(entry, rewrite);
      Object.assign(forged, rewrite);
      entry.tombstone = {
        from_sequence: s,
        to_sequence: s + 3,
        reason: 'routine',
        authorised_by: 'alice',
        removed_at: entry.occurred_at as string,
      };
      const r = await verify(forged, c);
      expect(r.result, c.name).toBe('fail');
      expect(codes(r), c.name).toEqual(['receipt_entry_mismatch', 'redacted_content_present']);
      const leftIn = r.findings.find((f) => f.code === 'redacted_content_present')!.message;
      for (const field of Object.keys(rewrite)) expect(leftIn).toContain(field);
    }
  });

  it('a redaction forged over a genuine receipt with the fixed values passes as position only, claiming nothing of content or tombstone', async () => {
    // The leaf and its place under the signed head are genuine, so "an entry with this leaf
    // is at sequence S" is true; everything else is fixed by §7 or listed as unverified.
    const c = real.cases.find((x) => x.name === 'plain entry, bare anchor')!;
    const forged = structuredClone(c.doc) as Doc & { proof: { entry: Doc } };
    const entry = forged.proof.entry;
    const at = '2026-06-01T12:00:00.000Z';
    const blank: Doc = {
      intent_id: '',
      actor_id: '',
      capability: '',
      allowed: false,
      amount_usd: 0,
      record_hash: '0'.repeat(64),
      occurred_at: at,
      linked_at: at,
    };
    Object.assign(entry, blank, { grant_id: '', tier: 0 });
    Object.assign(forged, blank, { grant_id: null, redacted: true });
    const s = entry.sequence as number;
    entry.tombstone = {
      from_sequence: s,
      to_sequence: s,
      reason: 'r',
      authorised_by: 'alice',
      removed_at: at,
    };
    const r = await verify(forged, c);
    expect(r.findings).toEqual([]);
    expect(r).toMatchObject({
      result: 'pass',
      summary: 'pass, redacted entry: proves position, not content',
      proves: 'position',
      redacted: true,
      sequence: s,
    });
    expect(r.establishes).toMatch(/position only/);
    expect(r.unverified).toEqual(
      expect.arrayContaining(['occurred_at', 'linked_at', 'outcome', 'proof.entry.tombstone']),
    );
  });

  it("a genuine redacted receipt's tombstone edits: the report already calls the tombstone unverified; removed_at is tied to the times", async () => {
    // The proof carries one leaf, not the redaction record whose preimage holds the
    // tombstone, so nothing can check reason, authorised_by or the range: the report says
    // so on the genuine receipt, and an edit changes nothing it claims.
    const c = real.cases.find((x) => x.name === 'redacted entry, bare anchor')!;
    const edit = (change: (t: Doc) => void) => {
      const doc = structuredClone(c.doc) as Doc & { proof: { entry: { tombstone: Doc } } };
      change(doc.proof.entry.tombstone);
      return verify(doc, c);
    };
    for (const change of [
      (t: Doc) => (t.reason = 'routine cleanup'),
      (t: Doc) => (t.authorised_by = 'mallory'),
      (t: Doc) => (t.to_sequence = (t.to_sequence as number) + 5),
    ]) {
      const r = await edit(change);
      expect(r).toMatchObject({ result: 'pass', proves: 'position' });
      expect(r.unverified).toContain('proof.entry.tombstone');
    }
    const moved = await edit((t) => (t.removed_at = '2026-01-01T00:00:00.000Z'));
    expect(codes(moved)).toEqual(['redacted_content_present']);
    const above = await edit((t) => (t.from_sequence = (c.doc.sequence as number) + 1));
    expect(above.result).toBe('fail');
  });

  it('every single mutation of every receipt fails unless the report shows why it is harmless', async () => {
    let total = 0;
    let passed = 0;
    const wrong: string[] = [];
    for (const c of real.cases) {
      const original = originals.get(c.name)!;
      for (const m of receiptMutations(c.doc)) {
        try {
          if (await expectFailsUnlessHarmless(c, original, [m])) passed += 1;
        } catch (err) {
          wrong.push((err as Error).message);
        }
        total += 1;
      }
    }
    expect(wrong).toEqual([]);
    expect(total).toBeGreaterThan(3000);
    // The unbound fields are few: most changes fail.
    expect(passed / total).toBeLessThan(0.2);
  }, 300_000);

  it('one to three mutations combined (fast-check, seeded): every changed receipt fails unless harmless', async () => {
    const all = real.cases.map((c) => ({ c, list: receiptMutations(c.doc) }));
    await fc.assert(
      fc.asyncProperty(
        fc.nat({ max: all.length - 1 }),
        fc.array(fc.nat(), { minLength: 1, maxLength: 3 }),
        async (ci, picks) => {
          const { c, list } = all[ci]!;
          await expectFailsUnlessHarmless(
            c,
            originals.get(c.name)!,
            picks.map((p) => list[p % list.length]!),
          );
        },
      ),
      { numRuns: 600, seed: 20261126 },
    );
  }, 300_000);

  it('the built svc verify receipt: exit 1 on the forged receipt, and both outputs list what is unverified', async () => {
    const tmp = tmpDir('svc-receipt-mutations-');
    try {
      const bin = fileURLToPath(new URL('../../bin/svc-verify.js', import.meta.url));
      const keyArgs = real.keys.flatMap((k) => ['--public-key', Buffer.from(k).toString('base64')]);
      const run = (doc: Json, json: boolean) => {
        const file = join(tmp.path, `r${Math.random().toString(36).slice(2)}.json`);
        writeFileSync(file, JSON.stringify(doc, null, 2));
        return spawnSync(process.execPath, [bin, 'receipt', file, ...keyArgs, ...(json ? ['--json'] : [])], {
          encoding: 'utf8',
        });
      };
      const redacted = real.cases.find((x) => x.name === 'redacted entry, bare anchor')!;
      const human = run(redacted.doc, false);
      expect(human.status, human.stderr).toBe(0);
      expect(human.stdout).toContain('PASS: pass, redacted entry: proves position, not content');
      expect(human.stdout).toContain('proves: the position of a redacted entry, not its content');
      expect(human.stdout).toMatch(
        /unverified \(published, not bound by the proof\): .*outcome.*proof\.entry\.tombstone/,
      );
      const json = JSON.parse(run(redacted.doc, true).stdout) as ReceiptReport;
      expect(json).toMatchObject({ result: 'pass', proves: 'position', redacted: true });
      expect(json.unverified).toEqual(expect.arrayContaining(['outcome', 'proof.entry.tombstone']));

      const plain = real.cases.find((x) => x.name === 'plain entry, bare anchor')!;
      const forged = structuredClone(plain.doc) as Doc & { proof: { entry: Doc } };
      const s = forged.proof.entry.sequence as number;
      forged.proof.entry.actor_id = forged.actor_id = 'mallory';
      forged.proof.entry.tombstone = {
        from_sequence: s,
        to_sequence: s,
        reason: 'r',
        authorised_by: 'alice',
        removed_at: forged.proof.entry.occurred_at as string,
      };
      const refused = run(forged, false);
      expect(refused.status).toBe(1);
      expect(refused.stdout).toContain('redacted_content_present');
    } finally {
      tmp.cleanup();
    }
  }, 120_000);
});
