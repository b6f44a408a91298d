import { describe, expect, it } from 'vitest';
import {
  PASS_DOES_NOT_ESTABLISH,
  PASS_ESTABLISHES,
  type VerificationReport,
} from '../../../src/evidence/verify/index.js';
import { renderReport, reportJson } from '../../../src/verifier/render.js';

const report: VerificationReport = {
  result: 'fail',
  summary: 'fail (2 findings)',
  qualifiers: [],
  notes: [],
  findings: [
    { code: 'key_id_mismatch', line: 5, message: 'anchor key_id ed25519-aaaa names no trusted key' },
    { code: 'signature_invalid', line: 5, message: 'anchor head signature does not verify' },
  ],
  findingsOmitted: 0,
  counts: { lines: 9, entries: 7, anchors: 1, redactedEntries: 0, redactionRanges: 0 },
  timestamps: { absent: 1, noop: 0, unverified: 0, verified: 0, invalid: 0 },
  witnesses: {
    anchorsWithWitnesses: 0,
    cosignatures: 0,
    verified: 0,
    unpinned: 0,
    notCounted: 0,
    lastAnchorIndependent: 0,
    required: 0,
  },
  trustedKeyIds: ['ed25519-bbbb'],
  missingKeyIds: ['ed25519-aaaa'],
  establishes: PASS_ESTABLISHES,
  doesNotEstablish: PASS_DOES_NOT_ESTABLISH,
};

describe('the verifier report as the CLI prints it', () => {
  it('names the keys the file needs that were not given, and where to get them', () => {
    const text = renderReport('acme.jsonl', report);
    expect(text).toMatch(/^missing keys: the file names ed25519-aaaa as signer, not among the trusted keys/m);
    expect(text).toContain('svc key show --tenant <tenant> --all');
    expect(renderReport('acme.jsonl', { ...report, missingKeyIds: [] })).not.toMatch(/missing keys/);
  });

  it('--json is the same report in snake_case', () => {
    const json = reportJson('acme.jsonl', report);
    expect(json).toMatchObject({
      result: 'fail',
      file: 'acme.jsonl',
      findings_omitted: 0,
      counts: { redacted_entries: 0, redaction_ranges: 0 },
      witnesses: { anchors_with_witnesses: 0, cosignatures: 0 },
      trusted_key_ids: ['ed25519-bbbb'],
      missing_key_ids: ['ed25519-aaaa'],
      does_not_establish: PASS_DOES_NOT_ESTABLISH,
    });
    const keys = (v: unknown): string[] =>
      v !== null && typeof v === 'object' && !Array.isArray(v)
        ? Object.entries(v).flatMap(([k, x]) => [k, ...keys(x)])
        : [];
    expect(keys(json).filter((k) => /[A-Z]/.test(k))).toEqual([]);
  });
});
