import { Args, Flags } from '@oclif/core';
import { durationSeconds, noteFlag, type CardDecision } from '../../src/cli/access.js';
import { DaemonCommand } from '../../src/cli/daemon-command.js';

export default class CardsDecide extends DaemonCommand {
  static override summary =
    'Approve (for at most the requested duration) or deny the access request on one of your cards.';
  static override examples = [
    '<%= config.bin %> cards decide card_0123… --decision approve --duration 4h --note "for the cleanup only"',
    '<%= config.bin %> cards decide card_0123… --decision deny --note "use the read-only capability"',
  ];
  static override args = {
    id: Args.string({ description: 'Card id, from `svc cards list`.', required: true }),
  };
  static override flags = {
    decision: Flags.string({ summary: 'approve or deny.', options: ['approve', 'deny'], required: true }),
    duration: Flags.string({ summary: 'approve only: grant less than requested (45m, 8h, 7d).' }),
    ...noteFlag,
  };

  async run(): Promise<CardDecision> {
    const { args, flags } = await this.parse(CardsDecide);
    const body = {
      card_id: args.id,
      decision: flags.decision,
      ...(flags.duration !== undefined ? { duration_seconds: durationSeconds(flags.duration) } : {}),
      ...(flags.note !== undefined ? { note: flags.note } : {}),
    };
    const result = await this.withDaemon(flags, (client) =>
      client.post<CardDecision>('/v1/manager-cards/decide', body),
    );
    const r = result.access_request;
    this.log(
      result.entitlement
        ? `Approved ${r.capability} for ${r.actor_id} until ${result.entitlement.expires_at} (entitlement ${result.entitlement.entitlement_id})`
        : `Denied ${r.capability} for ${r.actor_id}`,
    );
    this.note(`Journaled as receipt ${result.receipt.receipt_id} (sequence ${result.receipt.sequence}).`);
    return result;
  }
}
