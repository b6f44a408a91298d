import { Flags } from '@oclif/core';
import { DataDirCommand } from '../../src/cli/base-command.js';
import { formatDiagnostic } from '../../src/policy/diagnostic.js';
import {
  checkPolicyText,
  policyRejected,
  verbsFor,
  type PolicyCheck,
} from '../../src/provisioning/policy.js';
import { readTextFile } from '../../src/provisioning/text-file.js';
import { tenantFlag } from '../../src/cli/tenant-flag.js';

export default class PolicyValidate extends DataDirCommand {
  static override summary = 'Check a Cedar policy set against the schema without storing it.';
  static override description =
    "With --tenant the schema's actions are that tenant's verbs (its capabilities' and read, write), as `svc policy set` uses; without it, read, write and any --verb, and no data dir is needed.";
  static override examples = [
    '<%= config.bin %> policy validate --tenant acme --file policy.cedar',
    '<%= config.bin %> policy validate --file policy.cedar --verb read --verb delete',
  ];
  static override flags = {
    file: Flags.string({ char: 'f', summary: 'The policy set, in Cedar syntax.', required: true }),
    tenant: tenantFlag({ summary: "Validate against this tenant's verbs." }),
    verb: Flags.string({ summary: 'Also allow this verb (repeatable, or a comma list).', multiple: true }),
  };

  async run(): Promise<PolicyCheck & { file: string; tenant_id: string | null }> {
    const { flags } = await this.parse(PolicyValidate);
    const text = readTextFile('file', flags.file);
    const extra = flags.verb ?? [];
    const verbs =
      flags.tenant === undefined
        ? await verbsFor(undefined, extra)
        : await this.withStore(flags, (store) =>
            verbsFor({ store, tenantId: flags.tenant as string }, extra),
          );
    const check = checkPolicyText(text, verbs);
    if (!check.valid) throw policyRejected(flags.file, verbs, check.errors);
    for (const w of check.warnings) this.note(`warning: ${flags.file}:${formatDiagnostic(w)}`);
    this.log(`${flags.file} is valid (actions: ${verbs.join(', ')})`);
    return { ...check, file: flags.file, tenant_id: flags.tenant ?? null };
  }
}
