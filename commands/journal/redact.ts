import { Flags } from '@oclif/core';
import { DataDirCommand } from '../../src/cli/base-command.js';
import type { Tombstone } from '../../src/evidence/export-line.js';
import { tenantFlag } from '../../src/cli/tenant-flag.js';
import { counted } from '../../src/cli/plural.js';

export default class JournalRedact extends DataDirCommand {
  static override summary =
    'Redact a range of journal entries in place, journaling who authorised it and why.';
  static override description =
    'Appends a redaction record (capability svc.journal.redact) carrying the tombstone and blanks every entry of the range in one transaction: ids, capability, grant, tier, amount and the private record are erased; sequence, times, record hash, leaf and chain hash stay, so every chain link and signed head still verifies. Ranges never overlap and never reach the redaction record itself. Exports then report "pass with redactions".';
  static override examples = [
    '<%= config.bin %> journal redact --tenant acme --from 1 --to 5000 --reason "retention: 400 days" --authorised-by alice --policy-id retention-400d',
  ];
  static override flags = {
    tenant: tenantFlag({ required: true }),
    from: Flags.integer({ summary: 'First sequence of the range.', required: true, min: 1 }),
    to: Flags.integer({ summary: 'Last sequence of the range (inclusive).', required: true, min: 1 }),
    reason: Flags.string({ summary: 'Why, in words an auditor reads.', required: true }),
    'authorised-by': Flags.string({
      summary: 'The registered human of the tenant who authorised it.',
      required: true,
    }),
    'policy-id': Flags.string({ summary: 'The retention policy this applies, if any.' }),
  };

  async run(): Promise<{ tenant_id: string; sequence: number; receipt_id: string; tombstone: Tombstone }> {
    const { flags } = await this.parse(JournalRedact);
    const result = await this.withStore(flags, (store) =>
      store.redactions.redact({
        tenantId: flags.tenant,
        from: flags.from,
        to: flags.to,
        reason: flags.reason,
        authorisedBy: flags['authorised-by'],
        ...(flags['policy-id'] !== undefined ? { policyId: flags['policy-id'] } : {}),
        at: new Date().toISOString(),
      }),
    );
    const t = result.tombstone;
    this.log(
      `Redacted entries ${t.from_sequence}..${t.to_sequence} of tenant ${flags.tenant} (${counted(t.to_sequence - t.from_sequence + 1, 'entry', 'entries')}); redaction record ${result.sequence} (receipt ${result.receiptId}).`,
    );
    return { tenant_id: flags.tenant, sequence: result.sequence, receipt_id: result.receiptId, tombstone: t };
  }
}
