import { Args, Flags } from '@oclif/core';
import { DataDirCommand } from '../../src/cli/base-command.js';
import { SvcError } from '../../src/core/errors.js';
import { revokeToken } from '../../src/provisioning/token.js';
import { tenantFlag } from '../../src/cli/tenant-flag.js';

export default class TokenRevoke extends DataDirCommand {
  static override summary = 'Revoke a token; the daemon refuses it from the next request on.';
  static override examples = ['<%= config.bin %> token revoke --tenant acme --id 3f2a9c0d1e4b5a69'];
  static override args = { id: Args.string({ description: 'Token id (or use --id).' }) };
  static override flags = {
    tenant: tenantFlag({ required: true }),
    id: Flags.string({ summary: 'Token id as shown by `svc token list`.' }),
  };

  async run(): Promise<{ token_id: string; tenant_id: string; revoked: true }> {
    const { args, flags } = await this.parse(TokenRevoke);
    const tokenId = flags.id ?? args.id;
    if (tokenId === undefined)
      throw new SvcError('usage', 'id: expected the token id to revoke', { remedy: 'see `svc token list`' });
    const result = await this.withStore(flags, (store) =>
      revokeToken(store, { tenantId: flags.tenant, tokenId, now: new Date() }),
    );
    this.log(`Revoked token ${result.token_id}`);
    return result;
  }
}
