import { Flags } from '@oclif/core';
import chalk from 'chalk';
import { DataDirCommand } from '../../src/cli/base-command.js';
import {
  DEFAULT_TOKEN_TTL_MS,
  issueToken,
  TTL_BOUNDS,
  type IssuedToken,
} from '../../src/provisioning/token.js';
import { tenantFlag } from '../../src/cli/tenant-flag.js';
import { durationFlag } from '../../src/cli/duration-flag.js';

export default class TokenIssue extends DataDirCommand {
  static override summary =
    'Issue a bearer token for an actor; the token is shown once and stored only as a hash.';
  static override examples = [
    '<%= config.bin %> token issue --tenant acme --actor crm-agent --ttl 30d',
    'export SVC_TOKEN=$(<%= config.bin %> token issue --tenant acme --actor crm-agent --json | jq -r .token)',
  ];
  static override flags = {
    tenant: tenantFlag({ required: true }),
    actor: Flags.string({ summary: 'Actor id the token authenticates.', required: true }),
    ttl: durationFlag(TTL_BOUNDS)({
      summary: 'Lifetime such as 90d, 12h, 30m or 45s (default 90d, at most 3650d).',
    }),
    label: Flags.string({ summary: 'A note to recognise the token by in `svc token list`.' }),
  };

  async run(): Promise<IssuedToken> {
    const { flags } = await this.parse(TokenIssue);
    const ttlMs = flags.ttl ?? DEFAULT_TOKEN_TTL_MS;
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
