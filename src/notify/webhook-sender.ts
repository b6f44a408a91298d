import { eventEnvelope, type NotifyEvent } from '../core/notify/event.js';
import { packageVersion } from '../http/version.js';
import { postOutbound, type OutboundOptions } from './outbound-http.js';
import type { OutboundPolicy, SendOutcome } from './outbound-policy.js';
import { signWebhook } from './webhook-signature.js';

export interface WebhookTarget {
  url: string;
  /** the destination's secrets, newest first: two during a rotation, else one */
  secrets: readonly string[];
}

/**
 * A webhook sender bound to how it reaches the network. The daemon uses `sendWebhook`
 * (system resolver and trust roots); tests bind their own resolver and CA here.
 */
export function webhookSender(options: OutboundOptions) {
  return async (
    target: WebhookTarget,
    event: NotifyEvent,
    policy: OutboundPolicy,
    now: Date,
  ): Promise<SendOutcome> => {
    // One serialisation: the bytes signed are the bytes sent.
    const body = JSON.stringify(eventEnvelope(event));
    let signed;
    try {
      signed = signWebhook(target.secrets, event.id, Math.floor(now.getTime() / 1000), body);
    } catch {
      // no secret, or one that is not whsec_…: never send unsigned, never quote the secret
      return { kind: 'refused', error: 'bad_secret' };
    }
    return postOutbound(
      {
        url: target.url,
        headers: {
          'content-type': 'application/json',
          'user-agent': `svc/${packageVersion()}`,
          ...signed,
        },
        body,
      },
      policy,
      options,
    );
  };
}

/**
 * One signed delivery of `event` to a webhook destination (Standard Webhooks 1.0): the body
 * is `{type, timestamp, data}`, `webhook-id` the event id (the same on every retry),
 * `webhook-timestamp` `now` in unix seconds, and one `v1,` signature per secret.
 */
export const sendWebhook: (
  target: WebhookTarget,
  event: NotifyEvent,
  policy: OutboundPolicy,
  now: Date,
) => Promise<SendOutcome> = webhookSender({});
