import { kekFlags } from '../../src/cli/kek-flags.js';
import { Args, Flags } from '@oclif/core';
import { DataDirCommand } from '../../src/cli/base-command.js';
import { EXIT } from '../../src/cli/exit-codes.js';
import { tenantFlag } from '../../src/cli/tenant-flag.js';
import { DEFAULT_OUTBOUND_POLICY } from '../../src/notify/outbound-policy.js';
import { checkAllowPrivate } from '../../src/notify/outbound-address.js';
import { testDestination, type TestResult } from '../../src/provisioning/notify-delivery.js';

export default class NotifyTest extends DataDirCommand {
  static override summary =
    'Send one test notification to a destination now, from this command (not queued, not retried; signed for a webhook), and say what the receiver answered.';
  static override description =
    "The event is of the first type the destination subscribes to, with data.test true and no record id. The outbound rules are the daemon's: give the same --notify-allow-loopback-http and --notify-allow-private as `svc daemon start`. Exits 1 unless the receiver answered 2xx.";
  static override examples = [
    '<%= config.bin %> notify test ops-hook --tenant acme',
    '<%= config.bin %> notify test local-hook --tenant demo --notify-allow-loopback-http --json',
  ];
  static override args = {
    id: Args.string({ description: 'The destination id.', required: true }),
  };
  static override flags = {
    tenant: tenantFlag({ required: true }),
    'notify-allow-loopback-http': Flags.boolean({
      summary: 'Allow http:// to a loopback address, as the daemon flag of the same name.',
      allowNo: true,
    }),
    'notify-allow-private': Flags.string({
      summary: 'A CIDR, address or host name allowed although private, as the daemon flag. Repeatable.',
      multiple: true,
    }),
    ...kekFlags,
  };

  async run(): Promise<TestResult> {
    const { args, flags } = await this.parse(NotifyTest);
    const policy = {
      ...DEFAULT_OUTBOUND_POLICY,
      allowLoopbackHttp: flags['notify-allow-loopback-http'] === true,
      allowPrivate: checkAllowPrivate('notify-allow-private', flags['notify-allow-private'] ?? []),
    };
    const r = await this.withStore(flags, (store, dir) =>
      testDestination(dir, store, {
        tenantId: flags.tenant,
        destinationId: args.id,
        policy,
        now: new Date(),
      }),
    );
    const answer = r.status === null ? r.error : `${r.status}${r.error === null ? '' : ` (${r.error})`}`;
    this.log(`Test ${r.event_type} ${r.event_id} to ${r.destination_id}: ${r.outcome}, ${answer}`);
    if (r.outcome !== 'delivered') process.exitCode = EXIT.failure;
    return r;
  }
}
