import { randomBytes } from 'node:crypto';
import { invalidField } from '../core/errors.js';

const PREFIX = 'whsec_';
const KEY_BYTES = 24;
const BASE64 = /^[A-Za-z0-9+/]+={0,2}$/;

/** A Standard Webhooks secret: `whsec_` + base64 of 24 random bytes. */
export function newWebhookSecret(): string {
  return PREFIX + randomBytes(KEY_BYTES).toString('base64');
}

/**
 * The HMAC key a secret carries. A malformed secret is refused rather than used as text, so a
 * receiver holding the same secret computes the same key with any Standard Webhooks library.
 * The error never repeats the secret.
 */
export function webhookKey(secret: string): Buffer {
  const expected = 'a webhook secret: whsec_ followed by base64 of 16 to 64 bytes';
  if (typeof secret !== 'string' || !secret.startsWith(PREFIX)) throw invalidField('secret', expected);
  const b64 = secret.slice(PREFIX.length);
  if (b64.length % 4 !== 0 || !BASE64.test(b64)) throw invalidField('secret', expected);
  const key = Buffer.from(b64, 'base64');
  // Buffer.from drops what it cannot read; a round trip catches it.
  if (key.toString('base64') !== b64 || key.length < 16 || key.length > 64)
    throw invalidField('secret', expected);
  return key;
}
