import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { nodeCrypto } from '../../src/evidence/node-crypto.js';
import { rawPublicKey } from '../../src/evidence/keys.js';
import { verifyExport, type VerificationReport } from '../../src/evidence/verify/index.js';
import { realExport, type RealExport } from '../helpers/real-export.js';
import { TAMPER_CASES, type TamperCase } from '../helpers/tamper-cases.js';
import {
  attackerKey,
  caseBytes,
  caseFile,
  contextOf,
  CORPUS_DIR,
  loadCorpus,
  writeCorpus,
  type Corpus,
} from '../helpers/tamper-corpus.js';

const codesOf = (r: VerificationReport): string[] => [...new Set(r.findings.map((f) => f.code))].sort();

function verifyCase(
  c: TamperCase,
  bytes: Uint8Array | string,
  trusted: Uint8Array[],
): Promise<VerificationReport> {
  const keys = c.trust === 'attacker' ? [rawPublicKey(attackerKey)] : trusted;
  return verifyExport([bytes], { publicKeys: keys, requireAnchors: c.requireAnchors === true }, nodeCrypto);
}

describe('tamper suite on a real export made by the daemon', () => {
  let fresh: RealExport;
  let corpus: Corpus;

  beforeAll(async () => {
    fresh = await realExport();
    if (process.env.SVC_WRITE_VECTORS === '1') writeCorpus(contextOf(fresh));
    corpus = loadCorpus();
  });
  afterAll(async () => fresh.f.close());

  it('has at least 40 distinct cases, each with its own id', () => {
    expect(TAMPER_CASES.length).toBeGreaterThanOrEqual(40);
    expect(new Set(TAMPER_CASES.map((c) => c.id)).size).toBe(TAMPER_CASES.length);
  });

  it('the committed original and a fresh export both pass, with their qualifiers', async () => {
    for (const [text, keys] of [
      [corpus.original, corpus.trusted],
      [fresh.text, fresh.keys],
    ] as const) {
      const r = await verifyExport([text], { publicKeys: keys }, nodeCrypto);
      expect(r.findings).toEqual([]);
      expect(r.summary).toBe('pass with redactions (3 entries in 1 range)');
      expect(r.counts).toEqual({
        lines: 18,
        entries: 14,
        anchors: 3,
        redactedEntries: 3,
        redactionRanges: 1,
      });
    }
  });

  it('README.md and cases.json list every case with its codes', () => {
    const readme = readFileSync(join(CORPUS_DIR, 'README.md'), 'utf8');
    const listed = JSON.parse(readFileSync(join(CORPUS_DIR, 'cases.json'), 'utf8')) as {
      id: string;
      codes: string[];
    }[];
    expect(listed.map((c) => c.id)).toEqual(TAMPER_CASES.map((c) => c.id));
    for (const c of TAMPER_CASES) {
      expect(readme).toContain(`| \`${c.id}\` |`);
      expect(listed.find((l) => l.id === c.id)!.codes).toEqual(c.codes);
    }
  });

  describe.each(TAMPER_CASES.map((c) => [c.id, c] as const))('%s', (_id, c) => {
    it('the committed case file is the mutation of the committed original', () => {
      expect(existsSync(caseFile(c))).toBe(true);
      expect(readFileSync(caseFile(c)).equals(caseBytes(c, corpus.context))).toBe(true);
    });

    it('fails with exactly its codes, in the corpus and on a fresh export', async () => {
      const committed = await verifyCase(c, readFileSync(caseFile(c)), corpus.trusted);
      expect(committed.result).toBe('fail');
      expect(codesOf(committed)).toEqual([...c.codes].sort());
      const again = await verifyCase(c, c.file(contextOf(fresh).context), fresh.keys);
      expect(codesOf(again)).toEqual([...c.codes].sort());
      for (const f of committed.findings) expect(f.message).not.toBe('');
    });
  });
});
