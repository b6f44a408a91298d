import { invalidField, SvcError } from '../core/errors.js';
import { checkSlug } from '../core/ids.js';
import { checkEventPattern } from '../core/notify/event.js';
import { SecretBox } from '../integration/secret-box.js';
import { checkDestinationUrl } from '../notify/destination-url.js';
import { newWebhookSecret } from '../notify/webhook-secret.js';
import type { DataDir } from '../store/data-dir.js';
import { DESTINATION_KINDS, type NotifyDestination } from '../store/notify-ports.js';
import type { Store } from '../store/ports.js';
import { requireTenant } from './references.js';

/** A destination as `svc notify list` and `add` show it: never its secret. */
export interface DestinationView {
  destination_id: string;
  tenant_id: string;
  kind: string;
  url: string;
  events: string[];
  enabled: boolean;
  disabled_reason: string | null;
  created_at: string;
}

export interface AddedDestination extends DestinationView {
  /** the webhook signing secret, shown once here and never again */
  secret: string;
}

export interface NewDestination {
  tenantId: string;
  id: string;
  kind: string;
  url: string;
  events: readonly string[];
  now: Date;
}

/** The secret store's name of a destination's signing secret. */
export const destinationSecretName = (id: string): string => `notify.${id}`;

export function destinationView(d: NotifyDestination): DestinationView {
  return {
    destination_id: d.id,
    tenant_id: d.tenantId,
    kind: d.kind,
    url: d.url,
    events: d.events,
    enabled: d.enabled,
    disabled_reason: d.disabledReason,
    created_at: d.createdAt,
  };
}

/** Only webhooks are delivered today; chat, collab and email come later (issue 26). */
function checkKind(kind: string): 'webhook' {
  if (kind === 'webhook') return kind;
  if ((DESTINATION_KINDS as readonly string[]).includes(kind)) {
    throw new SvcError('invalid_request', `kind: ${kind} destinations are not yet supported; use webhook`, {
      field: 'kind',
    });
  }
  throw invalidField('kind', 'webhook');
}

function checkEvents(events: readonly string[]): string[] {
  if (events.length === 0) throw invalidField('events', 'at least one event type, family (approval.*) or *');
  return [...new Set(events.map((e) => checkEventPattern('events', e)))];
}

/**
 * A new destination of the tenant, with a new signing secret sealed in the secret store
 * under `notify.<id>`. Everything is checked before anything is written; the destination is
 * written first (a duplicate id stops there, and an existing secret is never replaced), and
 * removed again if its secret cannot be sealed.
 */
export async function addDestination(
  dir: DataDir,
  store: Store,
  o: NewDestination,
): Promise<AddedDestination> {
  await requireTenant(store, o.tenantId);
  const id = checkSlug('id', o.id);
  const kind = checkKind(o.kind);
  const url = checkDestinationUrl('url', o.url).href;
  const events = checkEvents(o.events);
  const destination: NotifyDestination = {
    tenantId: o.tenantId,
    id,
    kind,
    url,
    events,
    secretName: destinationSecretName(id),
    enabled: true,
    disabledReason: null,
    createdAt: o.now.toISOString(),
  };
  const box = SecretBox.open(dir.root, { create: true });
  const secret = newWebhookSecret();
  const sealed = box.seal(o.tenantId, destination.secretName, secret);
  await store.notify.addDestination(destination);
  try {
    await store.secrets.put(o.tenantId, destination.secretName, sealed, destination.createdAt);
  } catch (err) {
    await store.notify.removeDestination(o.tenantId, id);
    throw err;
  }
  return { ...destinationView(destination), secret };
}

export async function listDestinations(store: Store, tenantId: string): Promise<DestinationView[]> {
  await requireTenant(store, tenantId);
  return (await store.notify.destinations(tenantId)).map(destinationView);
}

/** Remove a destination and its secret; its undelivered events end `disabled`. */
export async function removeDestination(
  store: Store,
  o: { tenantId: string; id: string },
): Promise<{ tenant_id: string; destination_id: string; removed: true }> {
  await requireTenant(store, o.tenantId);
  const id = checkSlug('id', o.id);
  if (!(await store.notify.removeDestination(o.tenantId, id))) {
    throw new SvcError('not_found', `no notification destination ${id} in tenant ${o.tenantId}`, {
      remedy: `see svc notify list --tenant ${o.tenantId}`,
    });
  }
  await store.secrets.delete(o.tenantId, destinationSecretName(id));
  return { tenant_id: o.tenantId, destination_id: id, removed: true };
}
