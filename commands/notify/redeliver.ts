import { kekFlags } from '../../src/cli/kek-flags.js';
import { Args, Flags } from '@oclif/core';
import { DataDirCommand } from '../../src/cli/base-command.js';
import { tenantFlag } from '../../src/cli/tenant-flag.js';
import { redeliverEvent } from '../../src/provisioning/notify-delivery.js';

export default class NotifyRedeliver extends DataDirCommand {
  static override summary =
    'Send a dead (or delivered) notification again, with the same event id: the daemon delivers it on its next look, with a fresh retry schedule.';
  static override examples = [
    '<%= config.bin %> notify redeliver evt_01J9Z3V8M1Q2W3E4R5T6Y7U8I9 --destination ops-hook --tenant acme',
  ];
  static override args = {
    event_id: Args.string({
      description: 'The event id (evt_…), as `svc notify deliveries` lists it.',
      required: true,
    }),
  };
  static override flags = {
    tenant: tenantFlag({ required: true }),
    destination: Flags.string({ summary: 'The destination to send it to again.', required: true }),
    ...kekFlags,
  };

  async run(): Promise<{ tenant_id: string; event_id: string; destination_id: string; state: 'pending' }> {
    const { args, flags } = await this.parse(NotifyRedeliver);
    const r = await this.withStore(flags, (store) =>
      redeliverEvent(store, {
        tenantId: flags.tenant,
        eventId: args.event_id,
        destinationId: flags.destination,
        now: new Date(),
      }),
    );
    this.log(`Queued ${r.event_id} for ${r.destination_id} again; the daemon sends it on its next look`);
    return r;
  }
}
