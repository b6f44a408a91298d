import { DataDirCommand } from '../../../src/cli/base-command.js';
import { differenceJson } from '../../../src/api/policy-difference-view.js';
import { renderDifference } from '../../../src/cli/difference-render.js';
import { shadowReport, type ShadowStatus } from '../../../src/provisioning/policy-shadow.js';
import { tenantFlag } from '../../../src/cli/tenant-flag.js';
import type { DifferenceReportJson } from '../../../src/api/policy-difference-view.js';

export default class PolicyShadowReport extends DataDirCommand {
  static override summary =
    "Summarise where a tenant's shadow policy differs from the policy in force: by outcome pair with examples, by capability and by actor.";
  static override examples = [
    '<%= config.bin %> policy shadow report --tenant acme',
    '<%= config.bin %> policy shadow report --tenant acme --json',
  ];
  static override flags = { tenant: tenantFlag({ required: true }) };

  async run(): Promise<ShadowStatus & DifferenceReportJson> {
    const { flags } = await this.parse(PolicyShadowReport);
    const { status, report } = await this.withStore(flags, (store) => shadowReport(store, flags.tenant));
    this.show(() => {
      const lines = [`Shadow policy ${status.candidate_id} (${status.source}), set ${status.set_at}`];
      if (status.failure !== null) {
        lines.push(
          `It does not compile against the tenant's registrations (registry version ${status.failure.registry_version ?? '?'}): ${status.failure.message}`,
        );
      } else if (!status.validates_now) {
        lines.push(
          "It no longer validates against the tenant's registrations: the daemon will report it not compared.",
        );
      }
      const skipped = [
        status.dropped > 0 ? `${status.dropped} dropped (queue full)` : '',
        status.uncompiled > 0 ? `${status.uncompiled} while it did not compile` : '',
        status.unreadable > 0 ? `${status.unreadable} recorded differences unreadable` : '',
      ].filter((s) => s !== '');
      if (skipped.length > 0) lines.push(`Not compared: ${skipped.join(', ')}.`);
      return `${lines.join('\n')}\n${renderDifference(report)}`.trimEnd();
    });
    return { ...status, ...differenceJson(report) };
  }
}
