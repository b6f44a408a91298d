import { signingSecrets } from '../core/notify/secret-rotation.js';
import type { NotifyDestination } from '../store/notify-ports.js';
import type { CredentialResolver } from '../integration/credentials.js';
import type { DestinationSender } from './delivery-loop.js';
import { sendChat } from './chat-sender.js';
import { sendCollab } from './collab-sender.js';
import { sendEmail } from './email-sender.js';
import { sendWebhook } from './webhook-sender.js';

/** The sender of each destination kind. */
export const DESTINATION_SENDERS: Record<NotifyDestination['kind'], DestinationSender> = {
  webhook: async (c) =>
    sendWebhook({ url: c.destination.url, secrets: await c.secrets() }, c.event, c.policy, c.now),
  chat: sendChat,
  collab: sendCollab,
  email: sendEmail,
};

/**
 * A destination's secrets, opened from the secret store at the moment of use (a rotation
 * applies to the next attempt). The sealed value holds one secret, or during a rotation
 * several separated by spaces, newest first, each older one with the end of its overlap
 * (core/notify/secret-rotation.ts): one whose end has passed by `clock()` no longer signs.
 * The error never carries any part of a value.
 */
export function destinationSecrets(credentials: CredentialResolver, clock: () => Date = () => new Date()) {
  return async (d: NotifyDestination): Promise<string[]> => {
    const r = await credentials.resolve(d.tenantId, `secret:${d.secretName}`);
    if (!r.ok) throw new Error(r.problem);
    const secrets = signingSecrets(r.value, clock());
    if (secrets.length === 0) throw new Error(`secret ${d.secretName} is empty`);
    return secrets;
  };
}
