import { Flags } from '@oclif/core';
import { DataDirCommand } from '../../src/cli/base-command.js';
import { renderTable } from '../../src/cli/table.js';
import { listTokens, type TokenListing } from '../../src/provisioning/token.js';

export default class TokenList extends DataDirCommand {
  static override summary = "List a tenant's tokens by their public id (secrets are never shown again).";
  static override examples = ['<%= config.bin %> token list --tenant acme --actor crm-agent'];
  static override flags = {
    tenant: Flags.string({ summary: 'Tenant id.', required: true }),
    actor: Flags.string({ summary: 'Only this actor’s tokens.' }),
  };

  async run(): Promise<{ tokens: TokenListing[] }> {
    const { flags } = await this.parse(TokenList);
    const tokens = await this.withStore(flags, (store) =>
      listTokens(store, {
        tenantId: flags.tenant,
        ...(flags.actor ? { actorId: flags.actor } : {}),
        now: new Date(),
      }),
    );
    this.log(
      renderTable(
        ['token id', 'actor', 'state', 'expires', 'label'],
        tokens.map((t) => [t.token_id, t.actor_id, t.state, t.expires_at, t.label]),
      ),
    );
    return { tokens };
  }
}
