import { kekFlags } from '../src/cli/kek-flags.js';
import { pkcs11Flags } from '../src/cli/pkcs11-flags.js';
import { Flags } from '@oclif/core';
import { DataDirCommand } from '../src/cli/base-command.js';
import { renderTable } from '../src/cli/table.js';
import { applyDeployment, type ApplyResult } from '../src/provisioning/apply.js';
import { DeploymentDocument } from '../src/provisioning/deployment-document.js';

export default class Apply extends DataDirCommand {
  static override summary =
    "Apply a deployment document (YAML or JSON): one tenant's actors, capabilities, permissions, policy, tasks, approval channels and notification destinations.";
  static override description =
    'The whole document is checked before anything is written; applying it again changes nothing. See docs/cli.md "svc apply" for the format.';
  static override examples = [
    '<%= config.bin %> apply -f deployment.yaml',
    '<%= config.bin %> apply -f deployment.yaml --dry-run',
  ];
  static override flags = {
    file: Flags.string({ char: 'f', summary: 'The deployment document.', required: true }),
    'dry-run': Flags.boolean({ summary: 'Check the document and report what would change; write nothing.' }),
    ...kekFlags,
    ...pkcs11Flags,
  };

  async run(): Promise<ApplyResult> {
    const { flags } = await this.parse(Apply);
    const doc = DeploymentDocument.read(flags.file);
    const result = await this.withStore(flags, (store, dir) =>
      applyDeployment(store, doc, { now: new Date(), dryRun: flags['dry-run'], dir }),
    );
    this.show(() => {
      const shown = result.changes.filter((c) => c.result !== 'unchanged');
      return shown.length === 0
        ? ''
        : renderTable(
            ['kind', 'id', 'result', 'changed'],
            shown.map((c) => [c.kind, c.id, c.result, c.changed?.join(', ')]),
          );
    });
    this.log(
      `${result.dry_run ? 'Would apply' : 'Applied'} ${result.file} to tenant ${result.tenant_id}: ` +
        `${result.created} created, ${result.updated} updated, ${result.unchanged} unchanged`,
    );
    for (const [id, secret] of Object.entries(result.secrets)) {
      this.note(`Signing secret of webhook destination ${id}, shown once:`);
      this.log(secret);
    }
    return result;
  }
}
