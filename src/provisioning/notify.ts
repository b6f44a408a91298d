import { invalidField, SvcError } from '../core/errors.js';
import { checkSlug } from '../core/ids.js';
import { checkEventPattern, typeMatches } from '../core/notify/event.js';
import { openSecretBox } from '../integration/secret-key-source.js';
import { resolve } from 'node:path';
import {
  CHAT_API_BASE,
  checkSettings,
  SMTP_SUBMISSION_PORT,
  suppliedSecret,
  type DestinationOptions,
} from '../core/notify/destination-settings.js';
import { checkDestinationUrl, checkSmtpUrl } from '../notify/destination-url.js';
import { newWebhookSecret } from '../notify/webhook-secret.js';
import type { DataDir } from '../store/data-dir.js';
import { DESTINATION_KINDS, type DestinationKind, type NotifyDestination } from '../store/notify-ports.js';
import type { Store } from '../store/ports.js';
import { requireTenant } from './references.js';

/** A destination as `svc notify list` and `add` show it: never its secret. */
export interface DestinationView {
  destination_id: string;
  tenant_id: string;
  kind: string;
  url: string;
  events: string[];
  /** the kind's settings (core/notify/destination-settings.ts), never a secret */
  settings: Readonly<Record<string, unknown>>;
  remind_after_seconds: number | null;
  escalate_to: string | null;
  enabled: boolean;
  disabled_reason: string | null;
  created_at: string;
}

export interface AddedDestination extends DestinationView {
  /** a webhook's signing secret, made here, shown once and never again; null for the other kinds */
  secret: string | null;
}

export interface NewDestination {
  tenantId: string;
  id: string;
  kind: string;
  /** webhook: required; chat: the Web API base (default the vendor's); collab: the service URL; email: smtp://host:port */
  url?: string | undefined;
  events: readonly string[];
  options?: DestinationOptions;
  /** chat: the bot token; collab: the client secret; email: the SMTP password (with a user) */
  secret?: string | undefined;
  remindAfterSeconds?: number | undefined;
  escalateTo?: string | undefined;
  now: Date;
}

/** The secret store's name of a destination's secret. */
export const destinationSecretName = (id: string): string => `notify.${id}`;

export function destinationView(d: NotifyDestination): DestinationView {
  return {
    destination_id: d.id,
    tenant_id: d.tenantId,
    kind: d.kind,
    url: d.url,
    events: d.events,
    settings: d.settings,
    remind_after_seconds: d.remindAfterSeconds,
    escalate_to: d.escalateTo,
    enabled: d.enabled,
    disabled_reason: d.disabledReason,
    created_at: d.createdAt,
  };
}

function checkKind(kind: string): DestinationKind {
  if ((DESTINATION_KINDS as readonly string[]).includes(kind)) return kind as DestinationKind;
  throw invalidField('kind', DESTINATION_KINDS.join(', '));
}

function checkEvents(events: readonly string[]): string[] {
  if (events.length === 0) throw invalidField('events', 'at least one event type, family (approval.*) or *');
  return [...new Set(events.map((e) => checkEventPattern('events', e)))];
}

/** The kind's URL: given, or the vendor's default where the kind has one. */
function checkUrl(kind: DestinationKind, url: string | undefined): string {
  if (url === undefined) {
    if (kind === 'chat') return CHAT_API_BASE;
    const what = {
      webhook: 'the receiver',
      collab: "the connector's service URL",
      email: 'smtp://HOST[:PORT]',
    };
    throw new SvcError('invalid_request', `url: a ${kind} destination needs ${what[kind]}`, { field: 'url' });
  }
  if (kind === 'email') {
    const u = checkSmtpUrl('url', url);
    return `smtp://${u.host}${u.port === '' ? `:${SMTP_SUBMISSION_PORT}` : ''}`;
  }
  return checkDestinationUrl('url', url).href;
}

/** The kind's settings, with their URLs checked as strictly as the destination's own. */
function settingsOf(kind: DestinationKind, options: DestinationOptions): Record<string, unknown> {
  const settings = checkSettings(kind, options);
  if (kind === 'collab') settings.tokenUrl = checkDestinationUrl('token-url', String(settings.tokenUrl)).href;
  if (kind === 'email') {
    settings.consoleUrl = checkDestinationUrl('console-url', String(settings.consoleUrl)).href;
    if (typeof settings.caFile === 'string') settings.caFile = resolve(settings.caFile);
  }
  return settings;
}

/** The secret to seal: a webhook's is made here; the other kinds' is the administrator's (add and rotate). */
export function secretFor(
  kind: DestinationKind,
  settings: Record<string, unknown>,
  given: string | undefined,
) {
  if (kind === 'webhook') {
    if (given !== undefined) {
      throw new SvcError(
        'invalid_request',
        'secret-file: a webhook signing secret is made by svc, not given',
        {
          field: 'secret-file',
        },
      );
    }
    return { value: newWebhookSecret(), shown: true };
  }
  const needed = suppliedSecret(kind, settings);
  const what = { chat: 'the bot token', collab: 'the client secret', email: 'the SMTP password' }[kind];
  if (!needed) {
    if (given !== undefined) {
      throw new SvcError(
        'invalid_request',
        'secret-file: an email destination without --smtp-user sends no password',
        {
          field: 'secret-file',
        },
      );
    }
    return undefined;
  }
  const value = given?.trim();
  if (value === undefined || value === '' || /\s/.test(value) || value.length > 4096) {
    throw new SvcError(
      'invalid_request',
      `secret-file: a ${kind} destination needs ${what} (one line, no spaces)`,
      {
        field: 'secret-file',
      },
    );
  }
  return { value, shown: false };
}

/**
 * Reminders: a delay, and optionally another destination of the tenant that also gets them
 * (one stored, or one of `alsoKnown`: those `svc apply` adds before this one).
 */
async function checkReminder(
  store: Store,
  o: NewDestination,
  id: string,
  events: readonly string[],
  alsoKnown: ReadonlySet<string>,
): Promise<{ remindAfterSeconds: number | null; escalateTo: string | null }> {
  if (o.escalateTo !== undefined && o.remindAfterSeconds === undefined) {
    throw new SvcError(
      'invalid_request',
      'escalate-to: escalation sends the reminder; give --remind-after too',
      {
        field: 'escalate-to',
      },
    );
  }
  if (o.remindAfterSeconds !== undefined && !events.some((p) => typeMatches(p, 'approval.requested'))) {
    throw new SvcError(
      'invalid_request',
      'remind-after: a destination reminds of the approvals it was sent; subscribe it to approval.requested (or approval.*)',
      { field: 'remind-after' },
    );
  }
  if (o.escalateTo === undefined)
    return { remindAfterSeconds: o.remindAfterSeconds ?? null, escalateTo: null };
  const to = checkSlug('escalate-to', o.escalateTo);
  if (to === id || !(alsoKnown.has(to) || (await store.notify.destination(o.tenantId, to)))) {
    throw new SvcError(
      'invalid_request',
      `escalate-to: expected another destination of tenant ${o.tenantId}`,
      {
        field: 'escalate-to',
        remedy: `add it first; see svc notify list --tenant ${o.tenantId}`,
      },
    );
  }
  return { remindAfterSeconds: o.remindAfterSeconds ?? null, escalateTo: to };
}

/** A destination checked whole and ready to write, with the secret to seal (if any). */
export interface PreparedDestination {
  destination: NotifyDestination;
  secret: { value: string; shown: boolean } | undefined;
}

/** Every check of `svc notify add`, writing nothing. */
export async function prepareDestination(
  store: Store,
  o: NewDestination,
  alsoKnown: ReadonlySet<string> = new Set(),
): Promise<PreparedDestination> {
  await requireTenant(store, o.tenantId);
  const id = checkSlug('id', o.id);
  const kind = checkKind(o.kind);
  const url = checkUrl(kind, o.url);
  const events = checkEvents(o.events);
  const settings = settingsOf(kind, o.options ?? {});
  const secret = secretFor(kind, settings, o.secret);
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
    settings,
    ...(await checkReminder(store, o, id, events, alsoKnown)),
  };
  return { destination, secret };
}

/**
 * Write a prepared destination: the destination first (a duplicate id stops there, and an
 * existing secret is never replaced), then its sealed secret; removed again if the secret
 * cannot be sealed.
 */
export async function writeDestination(
  dir: DataDir,
  store: Store,
  p: PreparedDestination,
): Promise<AddedDestination> {
  const { destination, secret } = p;
  const box = await openSecretBox(dir, store, { create: true });
  const sealed = secret && box.seal(destination.tenantId, destination.secretName, secret.value);
  await store.notify.addDestination(destination);
  if (sealed !== undefined) {
    try {
      await store.secrets.put(destination.tenantId, destination.secretName, sealed, destination.createdAt);
    } catch (err) {
      await store.notify.removeDestination(destination.tenantId, destination.id);
      throw err;
    }
  }
  return { ...destinationView(destination), secret: secret?.shown ? secret.value : null };
}

/**
 * A new destination of the tenant, its secret sealed in the secret store under
 * `notify.<id>`. Everything is checked before anything is written.
 */
export async function addDestination(
  dir: DataDir,
  store: Store,
  o: NewDestination,
): Promise<AddedDestination> {
  return writeDestination(dir, store, await prepareDestination(store, o));
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
