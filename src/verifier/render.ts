import type { VerificationReport } from '../evidence/verify/index.js';

const plural = (n: number, one: string, many = `${one}s`): string => `${n} ${n === 1 ? one : many}`;

/**
 * The `--json` report: the same facts in the snake_case every `svc --json` result uses
 * (semantics.md: `result`, `findings` with `code`, `line`, `message`, and the counts).
 */
export function reportJson(file: string, r: VerificationReport) {
  return {
    result: r.result,
    summary: r.summary,
    file,
    qualifiers: r.qualifiers,
    notes: r.notes,
    findings: r.findings,
    findings_omitted: r.findingsOmitted,
    counts: {
      lines: r.counts.lines,
      entries: r.counts.entries,
      anchors: r.counts.anchors,
      redacted_entries: r.counts.redactedEntries,
      redaction_ranges: r.counts.redactionRanges,
    },
    timestamps: r.timestamps,
    witnesses: {
      anchors_with_witnesses: r.witnesses.anchorsWithWitnesses,
      cosignatures: r.witnesses.cosignatures,
      verified: r.witnesses.verified,
      unpinned: r.witnesses.unpinned,
      not_counted: r.witnesses.notCounted,
      last_anchor_independent: r.witnesses.lastAnchorIndependent,
      required: r.witnesses.required,
    },
    trusted_key_ids: r.trustedKeyIds,
    missing_key_ids: r.missingKeyIds,
    establishes: r.establishes,
    does_not_establish: r.doesNotEstablish,
  };
}

/** The human report: the result, every finding with its line, the qualifiers, and §9's limits. */
export function renderReport(file: string, report: VerificationReport): string {
  const out: string[] = [];
  out.push(`${report.result === 'pass' ? 'PASS' : 'FAIL'}: ${report.summary}`);
  out.push(`file: ${file}`);
  out.push(`trusted keys: ${report.trustedKeyIds.join(', ')}`);
  if (report.missingKeyIds.length > 0) {
    out.push(
      `missing keys: the file names ${report.missingKeyIds.join(', ')} as signer${report.missingKeyIds.length === 1 ? '' : 's'}, ` +
        'not among the trusted keys. Obtain them out of band (the operator runs `svc key show --tenant <tenant> --all`, ' +
        'which lists retired keys too) and pass each with --public-key.',
    );
  }
  const c = report.counts;
  out.push(
    `read: ${plural(c.lines, 'line')}, ${plural(c.entries, 'entry', 'entries')}, ${plural(c.anchors, 'anchor')}` +
      (c.redactedEntries > 0
        ? `, ${plural(c.redactedEntries, 'redacted entry', 'redacted entries')} in ${plural(c.redactionRanges, 'range')}`
        : ''),
  );
  for (const q of report.qualifiers) out.push(`qualifier: ${q}`);
  for (const n of report.notes) out.push(`note: ${n}`);
  if (report.findings.length > 0) {
    out.push('', `findings (${report.findings.length + report.findingsOmitted}):`);
    for (const f of report.findings)
      out.push(`  ${f.line === null ? 'file' : `line ${f.line}`}: ${f.code}: ${f.message}`);
    if (report.findingsOmitted > 0)
      out.push(`  … and ${plural(report.findingsOmitted, 'more finding')} not listed`);
  }
  out.push('', `What a pass establishes: ${report.establishes}`, 'What it does not establish:');
  for (const limit of report.doesNotEstablish) out.push(`  - ${limit}`);
  return out.join('\n');
}
