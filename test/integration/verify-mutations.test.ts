import { spawnSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { nodeCrypto } from '../../src/evidence/node-crypto.js';
import { verifyExport } from '../../src/evidence/verify/index.js';
import { applyAll, mutations, type Mutation } from '../helpers/export-mutations.js';
import { realExport, type RealExport } from '../helpers/real-export.js';
import { loadCorpus } from '../helpers/tamper-corpus.js';
import { tmpDir } from '../helpers/tmp.js';

const sameBytes = (a: Uint8Array, b: Uint8Array) => Buffer.compare(Buffer.from(a), Buffer.from(b)) === 0;
const bytesOf = (text: string) => new Uint8Array(Buffer.from(text, 'utf8'));

/**
 * `svc verify` on mutated copies of a real export: any change to signed content fails. The
 * format admits exactly one spelling of each line (RFC 8785, §8) and binds every field but
 * the header's `exported_at`, which the mutations leave alone, so the only file that may
 * pass is one whose bytes did not change (a line moved onto itself, a value set to itself).
 */
async function expectOnlyUnchangedPasses(text: string, keys: Uint8Array[], list: Mutation[]): Promise<void> {
  const lines = text.slice(0, -1).split('\n');
  const original = bytesOf(text);
  const mutated = applyAll(lines, list);
  const report = await verifyExport([mutated], { publicKeys: keys }, nodeCrypto);
  const unchanged = sameBytes(mutated, original);
  expect(
    report.result,
    `${list.map((m) => m.what).join('; ')} -> ${report.result}: ${JSON.stringify(report.findings.slice(0, 3))}`,
  ).toBe(unchanged ? 'pass' : 'fail');
}

describe('svc verify on mutated exports (fast-check, seeded)', () => {
  const corpus = loadCorpus();
  let fresh: RealExport;
  beforeAll(async () => {
    fresh = await realExport();
  });
  afterAll(async () => fresh.f.close());

  it('the committed real export: every changed file fails', async () => {
    await fc.assert(
      fc.asyncProperty(mutations, (list) => expectOnlyUnchangedPasses(corpus.original, corpus.trusted, list)),
      { numRuns: 600, seed: 20261123 },
    );
  });

  it('a fresh real export from the daemon: every changed file fails', async () => {
    await fc.assert(
      fc.asyncProperty(mutations, (list) => expectOnlyUnchangedPasses(fresh.text, fresh.keys, list)),
      { numRuns: 300, seed: 1123 },
    );
  });

  it('a whole intermediate anchor line removed is not a change the format can see: it passes, with one anchor fewer', async () => {
    // Nothing signed lists a file's anchors (the header is unsigned), so the file is a valid
    // export carrying fewer attestations; the entries and the header head are untouched, and
    // the report's anchor count is what shows the difference. Removing every anchor is
    // refused (anchor_missing: the tamper corpus's anchors-dropped).
    const lines = corpus.original.slice(0, -1).split('\n');
    const anchor = lines.findIndex((l) => l.includes('"type":"anchor"'));
    const without = lines.filter((_, i) => i !== anchor);
    const report = await verifyExport(
      [without.map((l) => l + '\n').join('')],
      { publicKeys: corpus.trusted },
      nodeCrypto,
    );
    expect(report.result).toBe('pass');
    expect(report.counts.anchors).toBe(2);
  });

  it('the built svc-verify exits 1 on changed files, 0 only on the unchanged one', async () => {
    const tmp = tmpDir('svc-mutations-');
    try {
      const bin = fileURLToPath(new URL('../../bin/svc-verify.js', import.meta.url));
      const keyArgs = corpus.trusted.flatMap((k) => ['--public-key', Buffer.from(k).toString('base64')]);
      const samples = fc.sample(mutations, { numRuns: 2, seed: 7 });
      const lines = corpus.original.slice(0, -1).split('\n');
      for (const [i, list] of [[], ...samples].entries()) {
        const mutated = applyAll(lines, list);
        const file = join(tmp.path, `m${i}.jsonl`);
        writeFileSync(file, mutated);
        const run = spawnSync(process.execPath, [bin, file, ...keyArgs, '--json'], { encoding: 'utf8' });
        const unchanged = sameBytes(mutated, bytesOf(corpus.original));
        expect(run.status, list.map((m) => m.what).join('; ')).toBe(unchanged ? 0 : 1);
      }
    } finally {
      tmp.cleanup();
    }
  });
});
