import { Flags } from '@oclif/core';
import chalk from 'chalk';
import { DataDirCommand } from '../../src/cli/base-command.js';
import { issueToken, parseTtl, type IssuedToken } from '../../src/provisioning/token.js';

export default class TokenIssue extends DataDirCommand {
  static override summary =
    'Issue a bearer token for an actor; the token is shown once and stored only as a hash.';
  static override examples = [
    '<%= config.bin %> token issue --tenant acme --actor crm-agent --ttl 30d',
    'export SVC_TOKEN=$(<%= config.bin %> token issue --tenant acme --actor crm-agent --json | jq -r .token)',
  ];
  static override flags = {
    tenant: Flags.string({ summary: 'Tenant id.', required: true }),
    actor: Flags.string({ summary: 'Actor id the token authenticates.', required: true }),
    ttl: Flags.string({ summary: 'Lifetime such as 90d, 12h, 30m or 45s (default 90d, at most 3650d).' }),
    label: Flags.string({ summary: 'A note to recognise the token by in `svc token list`.' }),
  };

  async run(): Promise<IssuedToken> {
    const { flags } = await this.parse(TokenIssue);
    const ttlMs = parseTtl(flags.ttl);
    const issued = await this.withStore(flags, (store) =>
      issueToken(store, {
        tenantId: flags.tenant,
        actorId: flags.actor,
        ttlMs,
        ...(flags.label !== undefined ? { label: flags.label } : {}),
        now: new Date(),
      }),
    );
    this.note(`Token ${issued.token_id} for ${issued.actor_id}, expires ${issued.expires_at}. Shown once:`);
    this.log(chalk.bold(issued.token));
    return issued;
  }
}
