import type { VerificationReport } from '../evidence/verify/index.js';

const plural = (n: number, one: string, many = `${one}s`): string => `${n} ${n === 1 ? one : many}`;

/** The human report: the result, every finding with its line, the qualifiers, and §9's limits. */
export function renderReport(file: string, report: VerificationReport): string {
  const out: string[] = [];
  out.push(`${report.result === 'pass' ? 'PASS' : 'FAIL'}: ${report.summary}`);
  out.push(`file: ${file}`);
  out.push(`trusted keys: ${report.trustedKeyIds.join(', ')}`);
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
