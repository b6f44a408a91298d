import { Flags } from '@oclif/core';
import { DataDirCommand } from '../../src/cli/base-command.js';
import { onePage, type Column } from '../../src/cli/list-output.js';
import { tenantFlag } from '../../src/cli/tenant-flag.js';
import {
  DELIVERY_LIST_MAX,
  DELIVERY_STATES,
  listDeliveries,
  type DeliveryListing,
} from '../../src/provisioning/notify-delivery.js';
import type { DeliveryState } from '../../src/store/notify-ports.js';

const COLUMNS: Column<DeliveryListing>[] = [
  { header: 'event', cell: (d) => d.event_id },
  { header: 'type', cell: (d) => d.event_type },
  { header: 'destination', cell: (d) => d.destination_id },
  { header: 'state', cell: (d) => d.state },
  { header: 'attempts', cell: (d) => String(d.attempts) },
  { header: 'last', cell: (d) => d.last_error ?? (d.last_status === null ? '' : String(d.last_status)) },
  { header: 'next attempt', cell: (d) => d.next_attempt_at ?? '' },
  { header: 'updated', cell: (d) => d.updated_at },
];

export default class NotifyDeliveries extends DataDirCommand {
  static override summary =
    "List a tenant's notification deliveries, newest first: state, attempts, the last status or error code (never a response body).";
  static override examples = [
    '<%= config.bin %> notify deliveries --tenant acme',
    '<%= config.bin %> notify deliveries --tenant acme --state dead --destination ops-hook --json',
  ];
  static override flags = {
    tenant: tenantFlag({ required: true }),
    state: Flags.string({ summary: 'Only deliveries in this state.', options: [...DELIVERY_STATES] }),
    destination: Flags.string({ summary: 'Only deliveries to this destination.' }),
    limit: Flags.integer({
      summary: `How many (1 to ${DELIVERY_LIST_MAX}).`,
      default: 50,
      min: 1,
      max: DELIVERY_LIST_MAX,
    }),
  };

  async run(): Promise<void> {
    const { flags } = await this.parse(NotifyDeliveries);
    await this.withStore(flags, (store) =>
      this.list(
        onePage(
          listDeliveries(store, {
            tenantId: flags.tenant,
            limit: flags.limit,
            ...(flags.state !== undefined ? { state: flags.state as DeliveryState } : {}),
            ...(flags.destination !== undefined ? { destinationId: flags.destination } : {}),
          }),
        ),
        COLUMNS,
      ),
    );
  }
}
