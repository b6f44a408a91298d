import { SvcError } from '../core/errors.js';
import { EVENT_TYPES, typeMatches, type NotifyEvent } from '../core/notify/event.js';
import { newId, checkSlug } from '../core/ids.js';
import { CredentialResolver } from '../integration/credentials.js';
import { openSecretBox } from '../integration/secret-key-source.js';
import { DESTINATION_SENDERS, destinationSecrets } from '../notify/destination-senders.js';
import type { OutboundPolicy, SendOutcome } from '../notify/outbound-policy.js';
import type { DataDir } from '../store/data-dir.js';
import type {
  DeliveryQuery,
  DeliveryRecord,
  DeliveryState,
  NotifyDestination,
} from '../store/notify-ports.js';
import type { Store } from '../store/ports.js';
import { requireTenant } from './references.js';

/** A delivery as `svc notify deliveries` shows it (never a URL, body, token or secret). */
export interface DeliveryListing {
  event_id: string;
  event_type: string;
  destination_id: string;
  state: DeliveryState;
  attempts: number;
  last_status: number | null;
  last_error: string | null;
  next_attempt_at: string | null;
  created_at: string;
  updated_at: string;
  delivered_at: string | null;
}

export const DELIVERY_STATES: readonly DeliveryState[] = ['pending', 'delivered', 'dead', 'disabled'];
export const DELIVERY_LIST_MAX = 200;

function listing(d: DeliveryRecord): DeliveryListing {
  return {
    event_id: d.eventId,
    event_type: d.eventType,
    destination_id: d.destinationId,
    state: d.state,
    attempts: d.attempts,
    last_status: d.lastStatus,
    last_error: d.lastError,
    next_attempt_at: d.nextAttemptAt,
    created_at: d.createdAt,
    updated_at: d.updatedAt,
    delivered_at: d.deliveredAt,
  };
}

async function requireDestination(store: Store, tenantId: string, id: string): Promise<NotifyDestination> {
  const d = await store.notify.destination(tenantId, checkSlug('destination', id));
  if (d === undefined) {
    throw new SvcError('not_found', `destination: no destination ${id} in tenant ${tenantId}`, {
      field: 'destination',
      remedy: `see svc notify list --tenant ${tenantId}`,
    });
  }
  return d;
}

/** A tenant's deliveries, newest first; `before` continues after a page's last one (keyset). */
export async function listDeliveries(
  store: Store,
  o: {
    tenantId: string;
    state?: DeliveryState;
    destinationId?: string;
    limit: number;
    before?: DeliveryQuery['before'];
  },
): Promise<DeliveryListing[]> {
  await requireTenant(store, o.tenantId);
  if (o.destinationId !== undefined) await requireDestination(store, o.tenantId, o.destinationId);
  const rows = await store.notify.deliveries(o.tenantId, {
    limit: o.limit,
    ...(o.state !== undefined ? { state: o.state } : {}),
    ...(o.destinationId !== undefined ? { destinationId: o.destinationId } : {}),
    ...(o.before !== undefined ? { before: o.before } : {}),
  });
  return rows.map(listing);
}

const EVENT_ID = /^evt_[A-Za-z0-9_-]{1,64}$/;

/**
 * A dead (or delivered) delivery made pending and due now, with the same event id, so a
 * receiver that deduplicates by id still sees it once. The daemon's loop sends it.
 */
export async function redeliverEvent(
  store: Store,
  o: { tenantId: string; eventId: string; destinationId: string; now: Date },
): Promise<{ tenant_id: string; event_id: string; destination_id: string; state: 'pending' }> {
  await requireTenant(store, o.tenantId);
  if (!EVENT_ID.test(o.eventId)) {
    throw new SvcError('invalid_request', 'event_id: expected an event id (evt_…)', { field: 'event_id' });
  }
  const dest = await requireDestination(store, o.tenantId, o.destinationId);
  if (!dest.enabled) {
    throw new SvcError(
      'conflict',
      `destination: ${dest.id} is disabled (${dest.disabledReason ?? 'by an administrator'}); nothing would send it`,
      { field: 'destination', remedy: `remove it and add it again with a working URL` },
    );
  }
  if (!(await store.notify.redeliver(o.tenantId, o.eventId, dest.id, o.now.toISOString()))) {
    throw new SvcError(
      'not_found',
      `no dead or delivered delivery of ${o.eventId} to ${dest.id} in tenant ${o.tenantId}`,
      { remedy: `see svc notify deliveries --tenant ${o.tenantId} --destination ${dest.id}` },
    );
  }
  return { tenant_id: o.tenantId, event_id: o.eventId, destination_id: dest.id, state: 'pending' };
}

export interface TestResult {
  tenant_id: string;
  destination_id: string;
  event_id: string;
  event_type: string;
  /** delivered, gone, retry (the receiver failed) or refused (the outbound policy said no) */
  outcome: SendOutcome['kind'];
  status: number | null;
  error: string | null;
}

/**
 * One signed delivery sent now, from this process, straight through the destination's
 * sender: not enqueued, not retried, not journaled. It is a synthetic event of the first type
 * the destination subscribes to (so the receiver's own filter takes it) with `data.test:
 * true` and no record id, so no receiver mistakes it for a real request.
 */
export async function testDestination(
  dir: DataDir,
  store: Store,
  o: { tenantId: string; destinationId: string; policy: OutboundPolicy; now: Date },
): Promise<TestResult> {
  await requireTenant(store, o.tenantId);
  const dest = await requireDestination(store, o.tenantId, o.destinationId);
  const sender = DESTINATION_SENDERS[dest.kind];
  if (!sender) {
    throw new SvcError('invalid_request', `destination: the ${dest.kind} kind cannot be tested yet`, {
      field: 'destination',
    });
  }
  const type = EVENT_TYPES.find((t) => dest.events.some((p) => typeMatches(p, t)));
  if (type === undefined) {
    throw new SvcError('invalid_request', `destination: ${dest.id} subscribes to no event type`, {
      field: 'destination',
    });
  }
  const credentials = new CredentialResolver(store.secrets, () =>
    openSecretBox(dir, store, { create: false }),
  );
  // Which secrets still sign is judged at the send's own time, as the signature's timestamp is.
  const open = destinationSecrets(credentials, () => o.now);
  const secrets = async (): Promise<string[]> => {
    try {
      return await open(dest);
    } catch (err) {
      throw new SvcError(
        'unavailable',
        `the secret of destination ${dest.id} cannot be opened: ${(err as Error).message}`,
      );
    }
  };
  const event: NotifyEvent = {
    id: newId('evt'),
    tenantId: o.tenantId,
    type,
    timestamp: o.now.toISOString(),
    data: { tenant_id: o.tenantId, test: true, destination_id: dest.id },
  };
  const out = await sender({
    destination: dest,
    event,
    policy: o.policy,
    now: o.now,
    secrets,
    repo: store.notify,
  });
  return {
    tenant_id: o.tenantId,
    destination_id: dest.id,
    event_id: event.id,
    event_type: type,
    outcome: out.kind,
    status: out.kind === 'refused' ? null : out.status,
    error: out.kind === 'retry' || out.kind === 'refused' ? out.error : null,
  };
}
