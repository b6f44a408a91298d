import { Flags } from '@oclif/core';
import { DataDirCommand } from '../../../src/cli/base-command.js';
import { formatDiagnostic } from '../../../src/policy/diagnostic.js';
import { setShadowPolicy, type ShadowSet } from '../../../src/provisioning/policy-shadow.js';
import { readTextFile } from '../../../src/provisioning/text-file.js';
import { tenantFlag } from '../../../src/cli/tenant-flag.js';

export default class PolicyShadowSet extends DataDirCommand {
  static override summary =
    'Set a candidate policy that the daemon evaluates every live decision against as well, recording only where it differs; it never changes an outcome. Validated first (exit 3 when it does not validate); a new candidate starts a new report.';
  static override examples = [
    '<%= config.bin %> policy shadow set --tenant acme --file candidate.cedar',
    '<%= config.bin %> policy shadow report --tenant acme',
  ];
  static override flags = {
    tenant: tenantFlag({ required: true }),
    file: Flags.string({ char: 'f', summary: 'The candidate policy set, in Cedar syntax.', required: true }),
  };

  async run(): Promise<ShadowSet> {
    const { flags } = await this.parse(PolicyShadowSet);
    const text = readTextFile('file', flags.file);
    const set = await this.withStore(flags, (store) =>
      setShadowPolicy(store, { tenantId: flags.tenant, text, source: flags.file, now: new Date() }),
    );
    for (const w of set.warnings) this.note(`warning: ${flags.file}:${formatDiagnostic(w)}`);
    this.log(
      `Shadow policy ${set.candidate_id} set for tenant ${set.tenant_id}: live decisions are compared with it from now on (svc policy shadow report --tenant ${set.tenant_id})`,
    );
    return set;
  }
}
