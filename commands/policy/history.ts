import { Flags } from '@oclif/core';
import { DataDirCommand } from '../../src/cli/base-command.js';
import { pageStream, type Column } from '../../src/cli/list-output.js';
import { tenantFlag } from '../../src/cli/tenant-flag.js';
import {
  HISTORY_PAGE,
  policyHistory,
  type PolicyVersionView,
} from '../../src/provisioning/policy-history.js';

const COLUMNS: Column<PolicyVersionView>[] = [
  { header: 'version', cell: (v) => (v.current ? `${v.version} (current)` : v.version) },
  { header: 'set at', cell: (v) => v.set_at },
  { header: 'set by', cell: (v) => v.set_by },
  { header: 'sha256', cell: (v) => v.sha256.slice(0, 12) },
  { header: 'message', cell: (v) => v.message },
];

export default class PolicyHistoryCommand extends DataDirCommand {
  static override summary =
    "List every stored version of a tenant's policy, newest first: who set it, when, why, and the SHA-256 of its text.";
  static override examples = [
    '<%= config.bin %> policy history --tenant acme',
    '<%= config.bin %> policy history --tenant acme --all --json',
  ];
  static override flags = {
    tenant: tenantFlag({ required: true }),
    limit: Flags.integer({
      summary: `Versions per page, 1 to ${HISTORY_PAGE.max}.`,
      default: HISTORY_PAGE.default,
    }),
    cursor: Flags.string({ summary: 'Continue from the next_cursor of a previous page.' }),
    all: Flags.boolean({ summary: 'Follow next_cursor to the last page.', exclusive: ['cursor'] }),
  };

  async run(): Promise<void> {
    const { flags } = await this.parse(PolicyHistoryCommand);
    await this.withStore(flags, (store) =>
      this.list(
        pageStream(
          (cursor) =>
            policyHistory(store, {
              tenantId: flags.tenant,
              limit: flags.limit,
              ...(cursor !== undefined ? { cursor } : {}),
            }),
          flags,
        ),
        COLUMNS,
      ),
    );
  }
}
