import { Flags } from '@oclif/core';
import { DataDirCommand } from '../../src/cli/base-command.js';
import { onePage, type Column } from '../../src/cli/list-output.js';
import { listTokens, type TokenListing } from '../../src/provisioning/token.js';
import { tenantFlag } from '../../src/cli/tenant-flag.js';

const COLUMNS: Column<TokenListing>[] = [
  { header: 'token id', cell: (t) => t.token_id },
  { header: 'actor', cell: (t) => t.actor_id },
  { header: 'state', cell: (t) => t.state },
  { header: 'expires', cell: (t) => t.expires_at },
  { header: 'label', cell: (t) => t.label },
];

export default class TokenList extends DataDirCommand {
  static override summary = "List a tenant's tokens by their public id (secrets are never shown again).";
  static override examples = ['<%= config.bin %> token list --tenant acme --actor crm-agent'];
  static override flags = {
    tenant: tenantFlag({ required: true }),
    actor: Flags.string({ summary: 'Only this actor’s tokens.' }),
  };

  async run(): Promise<void> {
    const { flags } = await this.parse(TokenList);
    await this.withStore(flags, (store) =>
      this.list(
        onePage(
          listTokens(store, {
            tenantId: flags.tenant,
            ...(flags.actor ? { actorId: flags.actor } : {}),
            now: new Date(),
          }),
        ),
        COLUMNS,
      ),
    );
  }
}
