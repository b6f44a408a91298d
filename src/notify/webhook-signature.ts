import { createHmac } from 'node:crypto';
import { webhookKey } from './webhook-secret.js';

/** The three Standard Webhooks 1.0 headers of one delivery. */
export interface WebhookSignatureHeaders {
  'webhook-id': string;
  'webhook-timestamp': string;
  'webhook-signature': string;
}

/** `v1,` + base64(HMAC-SHA256(key, `${id}.${timestamp}.${body}`)) for one secret. */
export function signatureFor(secret: string, id: string, timestamp: number, body: string): string {
  const mac = createHmac('sha256', webhookKey(secret))
    .update(`${id}.${timestamp}.${body}`, 'utf8')
    .digest('base64');
  return `v1,${mac}`;
}

/**
 * The headers that sign `body` as Standard Webhooks 1.0 specifies: one `v1,` signature per
 * secret, newest first, space-separated, so a receiver holding either side of a rotation
 * verifies. `timestamp` is unix seconds; the body is signed exactly as it is sent.
 */
export function signWebhook(
  secrets: readonly string[],
  id: string,
  timestamp: number,
  body: string,
): WebhookSignatureHeaders {
  if (secrets.length === 0) throw new TypeError('signWebhook: at least one secret');
  return {
    'webhook-id': id,
    'webhook-timestamp': String(timestamp),
    'webhook-signature': secrets.map((s) => signatureFor(s, id, timestamp, body)).join(' '),
  };
}
