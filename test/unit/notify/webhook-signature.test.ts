import { Webhook } from 'standardwebhooks';
import { describe, expect, it } from 'vitest';
import { newWebhookSecret } from '../../../src/notify/webhook-secret.js';
import { signWebhook } from '../../../src/notify/webhook-signature.js';

// The `standardwebhooks` package is an independent implementation of the same standard:
// what it accepts, any receiver's library accepts.
const asHeaders = (h: ReturnType<typeof signWebhook>): Record<string, string> => ({ ...h });
const flip = (s: string, at: number): string =>
  s.slice(0, at) + String.fromCharCode(s.charCodeAt(at) ^ 1) + s.slice(at + 1);

describe('Standard Webhooks signing', () => {
  const body = JSON.stringify({
    type: 'approval.requested',
    timestamp: '2026-11-27T00:00:00Z',
    data: { tenant_id: 't1', amount: '12.50 €' },
  });
  const now = Math.floor(Date.now() / 1000);

  it('a signature the standardwebhooks package verifies', () => {
    const secret = newWebhookSecret();
    const h = signWebhook([secret], 'evt_01ABC', now, body);
    expect(h['webhook-id']).toBe('evt_01ABC');
    expect(h['webhook-timestamp']).toBe(String(now));
    expect(h['webhook-signature']).toMatch(/^v1,[A-Za-z0-9+/]{43}=$/);
    expect(new Webhook(secret).verify(body, asHeaders(h))).toEqual(JSON.parse(body));
  });

  it('matches the package signer byte for byte', () => {
    const secret = newWebhookSecret();
    const theirs = new Webhook(secret).sign('evt_1', new Date(now * 1000), body);
    expect(signWebhook([secret], 'evt_1', now, body)['webhook-signature']).toBe(theirs);
  });

  it('fails after a one-byte change of body, id, timestamp or secret', () => {
    const secret = newWebhookSecret();
    const h = asHeaders(signWebhook([secret], 'evt_01ABC', now, body));
    const wh = new Webhook(secret);
    expect(() => wh.verify(flip(body, 40), h)).toThrow();
    expect(() => wh.verify(body, { ...h, 'webhook-id': flip('evt_01ABC', 8) })).toThrow();
    expect(() => wh.verify(body, { ...h, 'webhook-timestamp': String(now + 1) })).toThrow();
    const key = Buffer.from(secret.slice(6), 'base64');
    key[0] = key[0]! ^ 1;
    expect(() => new Webhook(`whsec_${key.toString('base64')}`).verify(body, h)).toThrow();
  });

  it('a rotated pair carries both signatures, newest first; either secret verifies', () => {
    const older = newWebhookSecret();
    const newer = newWebhookSecret();
    const h = signWebhook([newer, older], 'evt_2', now, body);
    const sigs = h['webhook-signature'].split(' ');
    expect(sigs).toHaveLength(2);
    expect(sigs[0]).toBe(signWebhook([newer], 'evt_2', now, body)['webhook-signature']);
    expect(sigs[1]).toBe(signWebhook([older], 'evt_2', now, body)['webhook-signature']);
    expect(new Webhook(newer).verify(body, asHeaders(h))).toEqual(JSON.parse(body));
    expect(new Webhook(older).verify(body, asHeaders(h))).toEqual(JSON.parse(body));
    expect(() => new Webhook(newWebhookSecret()).verify(body, asHeaders(h))).toThrow();
  });

  it('refuses to sign with no secret or a malformed one', () => {
    expect(() => signWebhook([], 'evt_3', now, body)).toThrow(/at least one secret/);
    expect(() => signWebhook(['plain-text'], 'evt_3', now, body)).toThrow(/secret: expected/);
  });
});
