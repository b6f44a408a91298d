import { describe, expect, it } from 'vitest';
import { newWebhookSecret, webhookKey } from '../../../src/notify/webhook-secret.js';
import { codedError } from '../../helpers/coded-error.js';

describe('webhook secrets', () => {
  it('are whsec_ + base64 of 24 random bytes, and their key is those bytes', () => {
    const a = newWebhookSecret();
    const b = newWebhookSecret();
    expect(a).toMatch(/^whsec_[A-Za-z0-9+/]{32}$/);
    expect(a).not.toBe(b);
    const key = webhookKey(a);
    expect(key.length).toBe(24);
    expect(`whsec_${key.toString('base64')}`).toBe(a);
  });

  it.each([
    ['no prefix', 'MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw'],
    ['another prefix', 'sk_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw'],
    ['empty key', 'whsec_'],
    ['not base64', 'whsec_MfKQ9r8GKYqrTwjUPD8I!PZIo2LaLaSw'],
    ['base64url', 'whsec_MfKQ9r8GKYqrTwjUPD8I-PZIo2LaLaSw'],
    ['bad padding', 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaS'],
    ['too short a key', `whsec_${Buffer.alloc(8, 1).toString('base64')}`],
    ['too long a key', `whsec_${Buffer.alloc(65, 1).toString('base64')}`],
  ])('refuses %s without repeating the secret', (_name, secret) => {
    const err = codedError(() => webhookKey(secret));
    expect(err.code).toBe('invalid_request');
    expect(err.message).toMatch(/^secret: expected a webhook secret/);
    if (secret.length > 12) expect(err.message).not.toContain(secret.slice(6, 18));
  });
});
