import { SvcCommand } from '../../src/cli/base-command.js';
import { exportSchema } from '../../src/evidence/schema.js';

export default class ExportSchema extends SvcCommand {
  static override summary = 'Print the JSON Schema (draft 2020-12) of one svc.export/v1 line.';
  static override description =
    'The schema checks structure only: line order, cross-line rules, hashes and signatures are what `svc verify` checks.';
  static override examples = ['<%= config.bin %> export schema > svc-export-v1.schema.json'];

  async run(): Promise<typeof exportSchema> {
    await this.parse(ExportSchema);
    if (!this.jsonEnabled()) this.log(JSON.stringify(exportSchema, null, 2));
    return exportSchema;
  }
}
