import { z } from 'zod';
import { EVENT_TYPES, type EventType } from '../core/notify/event.js';
import type { WebhookSpec } from '../http/openapi.js';
import { EVENT_PAYLOADS } from './event-payloads.js';

/** What each event type reports, for the OpenAPI document's `webhooks` (docs/notifications.md). */
const WRITTEN_WHEN: Record<EventType, string> = {
  'approval.requested': 'a decision deferred and opened an approval',
  'approval.decided': 'a human approved or denied an approval, from any channel',
  'approval.expired': 'the daemon noticed an approval expired undecided (once per approval)',
  'approval.reminder': 'an approval is still pending after the destination’s reminder delay',
  'access_request.created': 'an agent asked for a capability it does not hold',
  'manager_card.decided': 'a manager or owner decided an access request',
  'entitlement.revoked': 'an entitlement was revoked',
  'budget.threshold':
    'a decision’s reservation took a task to 80 % or 100 % of its budget (each once per task)',
  'decision.refused': 'a decision was refused (written only while a destination subscribes to it)',
  'attestation.failed': 'a witness or the timestamp authority did not answer an anchor',
  'integration.surface_revoked': 'an administrator revoked a surface’s credential',
};

/** The envelope of one type: `{type, timestamp, data}` with that type's data. */
function envelopeOf(type: EventType) {
  return z.strictObject({
    type: z.literal(type),
    timestamp: z.string().describe('RFC 3339: when the change it reports was committed'),
    data: EVENT_PAYLOADS[type],
  });
}

/** The Standard Webhooks 1.0 headers every delivery carries (semantics.md). */
const SIGNATURE_HEADERS = z.strictObject({
  'webhook-id': z
    .string()
    .describe('the event id (evt_…): the same on every retry and redelivery; deduplicate by it'),
  'webhook-timestamp': z
    .string()
    .regex(/^[0-9]+$/)
    .describe('unix seconds when this attempt was signed; refuse one too far from your clock'),
  'webhook-signature': z
    .string()
    .describe(
      'space-separated `v1,` + base64(HMAC-SHA256(key, id + "." + timestamp + "." + body)) under the destination’s whsec_ secret; two during a rotation',
    ),
});

/**
 * One entry per event type: what a webhook destination receives, signed, and what its
 * answer means to the daemon. Built from the same zod schemas the tests check every emitted
 * event against, so the document cannot describe a payload the daemon does not send.
 */
export const EVENT_WEBHOOKS: readonly WebhookSpec[] = EVENT_TYPES.map((type) => ({
  name: type,
  summary: `${type}: ${WRITTEN_WHEN[type]}`,
  description:
    'Sent by the daemon to each enabled webhook destination of the tenant subscribed to this type, at least once and in no particular order. Verify the signature over the exact body bytes (any Standard Webhooks library), then deduplicate by webhook-id.',
  headers: SIGNATURE_HEADERS,
  body: envelopeOf(type),
  responses: {
    '2XX': { description: 'delivered: the daemon does not send this event to this destination again' },
    '410': {
      description:
        'Gone: the destination is disabled and its pending deliveries end as disabled; nothing is retried',
    },
    default: {
      description:
        'any other answer, a redirect, a time-out or a connection failure: retried with back-off for about 31 hours, then a dead letter an administrator may redeliver',
    },
  },
}));
