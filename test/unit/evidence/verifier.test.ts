import { createReadStream } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { nobleCrypto } from '../../../src/evidence/noble-crypto.js';
import { nodeCrypto } from '../../../src/evidence/node-crypto.js';
import {
  PASS_DOES_NOT_ESTABLISH,
  PASS_ESTABLISHES,
  PRE_ANCHOR_QUALIFIER,
  verifyExport,
} from '../../../src/evidence/verify/index.js';
import {
  codesOf,
  editLine,
  flipFirstHexDigit,
  joinLines,
  L,
  LOG_KEY,
  OTHER_KEY,
  VECTOR_LINES,
  VECTOR_TEXT,
  verify,
} from './export-tamper.js';
import { syntheticExport } from './synthetic-export.js';
import { vectorPath } from './vector-paths.js';

const bytesOf = (text: string): Uint8Array => new TextEncoder().encode(text);
function* chunks(bytes: Uint8Array, size: number): Generator<Uint8Array> {
  for (let i = 0; i < bytes.length; i += size) yield bytes.subarray(i, i + size);
}
const synthetic = (options: Parameters<typeof syntheticExport>[0]): string =>
  [...syntheticExport(options)].join('');

describe('verifier: the project vector passes, with its qualifiers and limits', () => {
  it('passes with redactions, and says what it did not verify', async () => {
    const report = await verify(VECTOR_TEXT);
    expect(report.findings).toEqual([]);
    expect(report.result).toBe('pass');
    expect(report.summary).toBe('pass with redactions (2 entries in 1 range)');
    expect(report.qualifiers).toEqual(['with redactions (2 entries in 1 range)']);
    expect(report.counts).toEqual({
      lines: 10,
      entries: 7,
      anchors: 2,
      redactedEntries: 2,
      redactionRanges: 1,
    });
    expect(report.timestamps).toEqual({ absent: 1, noop: 1, unverified: 0, verified: 0, invalid: 0 });
    expect(report.witnesses).toEqual({
      anchorsWithWitnesses: 1,
      cosignatures: 1,
      verified: 0,
      unpinned: 1,
      notCounted: 0,
      lastAnchorIndependent: 0,
      required: 0,
    });
    expect(report.notes).toEqual([
      '1 noop timestamp: a placeholder, not third-party attestation',
      '1 witness cosignature present, not verified (no --witness-key pinned for their ids)',
    ]);
    expect(report.trustedKeyIds).toEqual(['ed25519-21fe31dfa154a261']);
  });

  it('prints the limits of §9 with every result, pass or fail', async () => {
    const pass = await verify(VECTOR_TEXT);
    const fail = await verify(VECTOR_TEXT.replace('"amount_usd":1.5', '"amount_usd":2'));
    for (const report of [pass, fail]) {
      expect(report.establishes).toBe(PASS_ESTABLISHES);
      expect(report.doesNotEstablish).toEqual(PASS_DOES_NOT_ESTABLISH);
    }
    expect(PASS_ESTABLISHES).toContain('integrity under the given trust configuration');
    expect(PASS_DOES_NOT_ESTABLISH.join(' ')).toMatch(
      /complete capture.*downstream success.*independence of an operator/,
    );
    expect(fail.result).toBe('fail');
  });

  it('never reports a timestamp or a witness as verified without trust given out of band', async () => {
    const report = await verify(VECTOR_TEXT);
    expect(report.timestamps.verified).toBe(0);
    expect(report.witnesses.verified).toBe(0);
    for (const note of report.notes) expect(note).toMatch(/not verified|not third-party attestation/);
  });

  it('passes under the @noble provider too', async () => {
    const report = await verifyExport([VECTOR_TEXT], { publicKeys: [LOG_KEY] }, nobleCrypto);
    expect(report.summary).toBe('pass with redactions (2 entries in 1 range)');
  });

  it('passes with several trusted keys, one of them the log key', async () => {
    expect((await verify(VECTOR_TEXT, { publicKeys: [OTHER_KEY, LOG_KEY] })).result).toBe('pass');
  });

  it('reports findings with their line numbers, ordered by line', async () => {
    const lines = editLine(
      editLine(VECTOR_LINES, L.e7, (e) => ({ ...e, leaf: flipFirstHexDigit(e.leaf as string) })),
      L.e1,
      (e) => ({ ...e, chain_hash: flipFirstHexDigit(e.chain_hash as string) }),
    );
    const report = await verify(joinLines(lines));
    expect(report.findings.map(({ code, line }) => ({ code, line }))).toEqual([
      { code: 'chain_mismatch', line: 2 },
      { code: 'chain_mismatch', line: 3 },
      { code: 'leaf_mismatch', line: 10 },
    ]);
  });
});

describe('verifier: input arrives as a stream', () => {
  const bytes = bytesOf(VECTOR_TEXT);

  it.each([1, 2, 3, 7, 64, 4096])('passes in %i-byte chunks', async (size) => {
    expect((await verify([...chunks(bytes, size)])).result).toBe('pass');
  });

  it('passes from a file stream (Node Buffers)', async () => {
    const stream = createReadStream(vectorPath('svc-export/export.jsonl'), { highWaterMark: 13 });
    expect((await verifyExport(stream, { publicKeys: [LOG_KEY] }, nodeCrypto)).result).toBe('pass');
  });

  it('decodes UTF-8 split across chunks', async () => {
    const text = synthetic({ entries: 5, anchorEvery: 2, tenant: 'Ärzte-Gesellschaft 東京 😀' });
    const multibyte = bytesOf(text);
    expect(multibyte.length).toBeGreaterThan(text.length);
    expect((await verify([...chunks(multibyte, 1)])).result).toBe('pass');
  });

  it('streams a large export with many anchors', async () => {
    const report = await verifyExport(
      syntheticExport({ entries: 5000, anchorEvery: 250 }),
      { publicKeys: [LOG_KEY] },
      nodeCrypto,
    );
    expect(report.findings).toEqual([]);
    expect(report.counts).toMatchObject({ entries: 5000, anchors: 20, lines: 5021 });
  });

  it('caps the findings it keeps and counts the rest', async () => {
    const crlf = synthetic({ entries: 300, anchorEvery: 100 }).replaceAll('\n', '\r\n');
    const report = await verify(crlf, { maxFindings: 50 });
    expect(report.findings).toHaveLength(50);
    expect(report.findingsOmitted).toBe(304 - 50);
    expect(report.summary).toBe('fail (304 findings)');
    expect(codesOf(report)).toEqual(['carriage_return']);
  });
});

describe('verifier: pre-anchor exports (§6 pre_anchor)', () => {
  it('passes, qualified, when pre_anchor is true and there are no anchors', async () => {
    const report = await verify(synthetic({ entries: 3, anchorEvery: 0, preAnchor: true }));
    expect(report.result).toBe('pass');
    expect(report.summary).toBe(`pass, ${PRE_ANCHOR_QUALIFIER}`);
    expect(report.qualifiers).toEqual(['pre-anchor: no anchors, timestamps or witnesses']);
  });

  it('passes an empty pre-anchor export (a head over the empty tree)', async () => {
    const report = await verify(synthetic({ entries: 0, anchorEvery: 0, preAnchor: true }));
    expect(report.summary).toBe(`pass, ${PRE_ANCHOR_QUALIFIER}`);
    expect(report.counts.entries).toBe(0);
  });

  it('fails it when anchors are required', async () => {
    const report = await verify(synthetic({ entries: 3, anchorEvery: 0, preAnchor: true }), {
      requireAnchors: true,
    });
    expect(codesOf(report)).toEqual(['anchors_required']);
  });

  it('fails without anchors when pre_anchor is absent or false', async () => {
    expect(codesOf(await verify(synthetic({ entries: 3, anchorEvery: 0 })))).toEqual(['anchor_missing']);
    expect(codesOf(await verify(synthetic({ entries: 3, anchorEvery: 0, preAnchor: false })))).toEqual([
      'anchor_missing',
    ]);
  });

  it('requireAnchors changes nothing for an anchored export', async () => {
    expect((await verify(VECTOR_TEXT, { requireAnchors: true })).result).toBe('pass');
  });
});

describe('verifier: degenerate files', () => {
  it('fails an empty file as a whole', async () => {
    const report = await verify('');
    expect(report.findings).toEqual([{ code: 'header_missing', line: null, message: 'the file is empty' }]);
  });

  it('fails a lone newline', async () => {
    expect(codesOf(await verify('\n'))).toEqual(['blank_line', 'header_missing']);
  });
});

describe('verifier: trust options are the caller’s, so misuse throws', () => {
  it('needs at least one key', async () => {
    await expect(verifyExport([VECTOR_TEXT], { publicKeys: [] }, nodeCrypto)).rejects.toThrow(TypeError);
  });

  it('refuses unusable keys instead of trusting them', async () => {
    const identity = Uint8Array.from({ length: 32 }, (_, i) => (i === 0 ? 1 : 0));
    await expect(verifyExport([VECTOR_TEXT], { publicKeys: [identity] }, nodeCrypto)).rejects.toThrow(
      RangeError,
    );
    await expect(
      verifyExport([VECTOR_TEXT], { publicKeys: [LOG_KEY.subarray(1)] }, nodeCrypto),
    ).rejects.toThrow(RangeError);
  });
});
