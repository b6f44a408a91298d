import { z } from 'zod';
import { requireHuman } from '../../http/auth.js';
import { ErrorBodySchema } from '../../http/openapi.js';
import { defineRoute, type AnyRoute } from '../../http/route.js';
import { decodeCursor, PageQuery, pageOf, wirePage } from '../../api/page.js';
import { destinationView } from '../../provisioning/notify.js';
import {
  DELIVERY_STATES,
  listDeliveries,
  redeliverEvent,
  type DeliveryListing,
} from '../../provisioning/notify-delivery.js';
import type { NotifyDestination } from '../../store/notify-ports.js';
import type { ConsoleDeps } from '../deps.js';
import { requireReader } from './registry.js';

export const Destination = z
  .object({
    destination_id: z.string(),
    kind: z.enum(['webhook', 'chat', 'collab', 'email']),
    url: z
      .string()
      .describe('scheme, host, port and path; a query string is shown as ?… (it may carry a token)'),
    events: z.array(z.string()),
    settings: z.record(z.string(), z.unknown()).describe("the kind's settings; never a secret"),
    remind_after_seconds: z.number().nullable(),
    escalate_to: z.string().nullable(),
    enabled: z.boolean(),
    disabled_reason: z.string().nullable(),
    created_at: z.string(),
  })
  .meta({ id: 'ConsoleNotifyDestination' });

const Delivery = z
  .object({
    event_id: z.string(),
    event_type: z.string(),
    destination_id: z.string(),
    state: z.enum(DELIVERY_STATES as ['pending', 'delivered', 'dead', 'disabled']),
    attempts: z.number(),
    last_status: z.number().nullable(),
    last_error: z.string().nullable().describe('a short code, never a response body'),
    next_attempt_at: z.string().nullable(),
    created_at: z.string(),
    updated_at: z.string(),
    delivered_at: z.string().nullable(),
  })
  .meta({ id: 'ConsoleNotifyDelivery' });

const Overview = z.object({
  counts: z.object({
    pending: z.number().describe("the tenant's deliveries waiting (due or not)"),
    dead: z.number().describe('dead letters waiting for a redeliver'),
    disabled: z.number().describe('destinations disabled (410 Gone or by an administrator)'),
  }),
  destinations: z.array(Destination),
});

const DeliveriesQuery = PageQuery.extend({
  state: z.enum(DELIVERY_STATES as ['pending', 'delivered', 'dead', 'disabled']).optional(),
  destination: z.string().min(1).max(100).optional().describe('only deliveries to this destination'),
});
const SCOPE = 'console-deliveries';
const CursorKey = z.tuple([z.string(), z.string(), z.string()]);

const RedeliverBody = z.strictObject({
  event_id: z.string().min(1).max(100).describe('the event id (evt_…) of a dead or delivered delivery'),
  destination_id: z.string().min(1).max(100),
});

/**
 * What the browser may see of a URL: a query string can carry a receiver's token (some
 * vendors put one there), so only that it has one is shown. Credentials and fragments are
 * refused when a destination is added, so the rest names the receiver and nothing more.
 */
function shownUrl(url: string): string {
  const u = new URL(url);
  return `${u.origin}${u.pathname}${u.search ? '?…' : ''}`;
}

export function consoleDestination(d: NotifyDestination) {
  const { tenant_id: _tenant, ...v } = destinationView(d);
  return { ...v, url: shownUrl(v.url) };
}

/**
 * The tenant's notifications: destinations, deliveries and dead letters. Reading is for those
 * who run or audit the deployment; a redeliver is an administrator's, through the same
 * function `svc notify redeliver` calls, so the same refusals hold.
 */
export function notificationRoutes(deps: ConsoleDeps): AnyRoute[] {
  return [
    defineRoute({
      method: 'GET',
      url: '/api/notifications',
      summary:
        "the tenant's notification destinations (never a secret) and counts of pending deliveries, dead letters and disabled destinations (operator, administrator or auditor)",
      tag: 'Console notifications',
      auth: 'token',
      responses: {
        200: { description: 'destinations and counts', schema: Overview },
        403: { description: 'not an operator, administrator or auditor', schema: ErrorBodySchema },
      },
      handler: async ({ caller }) => {
        requireReader(caller);
        const [counts, destinations] = await Promise.all([
          deps.store.notify.counts(caller.tenantId),
          deps.store.notify.destinations(caller.tenantId),
        ]);
        return { counts, destinations: destinations.map(consoleDestination) };
      },
    }),
    defineRoute({
      method: 'GET',
      url: '/api/notifications/deliveries',
      summary:
        "the tenant's deliveries, newest first, paged; filter by state or destination (operator, administrator or auditor)",
      tag: 'Console notifications',
      auth: 'token',
      query: DeliveriesQuery,
      responses: {
        200: { description: 'a page of deliveries', schema: pageOf(Delivery) },
        403: { description: 'not an operator, administrator or auditor', schema: ErrorBodySchema },
        404: { description: 'no such destination in the tenant', schema: ErrorBodySchema },
      },
      handler: async ({ caller, query }) => {
        requireReader(caller);
        const key = query.cursor === undefined ? undefined : decodeCursor(query.cursor, CursorKey, SCOPE);
        // One more than asked says whether another page follows.
        const rows = await listDeliveries(deps.store, {
          tenantId: caller.tenantId,
          limit: query.limit + 1,
          ...(query.state !== undefined ? { state: query.state } : {}),
          ...(query.destination !== undefined ? { destinationId: query.destination } : {}),
          ...(key ? { before: { createdAt: key[0], eventId: key[1], destinationId: key[2] } } : {}),
        });
        const items = rows.slice(0, query.limit);
        const last: DeliveryListing | undefined = items[items.length - 1];
        const next =
          rows.length > query.limit && last
            ? ([last.created_at, last.event_id, last.destination_id] as [string, string, string])
            : undefined;
        return wirePage({ items, next }, SCOPE);
      },
    }),
    defineRoute({
      method: 'POST',
      url: '/api/notifications/redeliver',
      summary:
        'send a dead (or delivered) delivery again with the same event id (administrator; CSRF token); the daemon sends it on its next look',
      tag: 'Console notifications',
      auth: 'token',
      body: RedeliverBody,
      responses: {
        200: {
          description: 'queued again',
          schema: z.object({
            tenant_id: z.string(),
            event_id: z.string(),
            destination_id: z.string(),
            state: z.literal('pending'),
          }),
        },
        403: { description: 'not an administrator', schema: ErrorBodySchema },
        404: {
          description: 'no such destination, or no dead or delivered delivery of it',
          schema: ErrorBodySchema,
        },
        409: { description: 'the destination is disabled', schema: ErrorBodySchema },
      },
      handler: async ({ caller, body }) => {
        requireHuman(caller, 'administrator');
        return redeliverEvent(deps.store, {
          tenantId: caller.tenantId,
          eventId: body.event_id,
          destinationId: body.destination_id,
          now: deps.clock(),
        });
      },
    }),
  ];
}
