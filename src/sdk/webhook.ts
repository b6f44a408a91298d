import { createHmac, timingSafeEqual } from 'node:crypto';
import { SvcError } from '../core/errors.js';

/** A verified event: the `webhook-id` (deduplicate by it: delivery is at least once) and the body. */
export interface WebhookEvent {
  id: string;
  type: string;
  timestamp: string;
  data: Record<string, unknown>;
}

export interface VerifyWebhookOptions {
  /** the clock to judge `webhook-timestamp` by (default: now) */
  now?: Date;
  /** how far `webhook-timestamp` may be from now, either way (default 300 s, as Standard Webhooks libraries) */
  toleranceSeconds?: number;
}

type Headers = Record<string, string | readonly string[] | undefined> | { get(name: string): string | null };

function header(headers: Headers, name: string): string | undefined {
  if (typeof (headers as { get?: unknown }).get === 'function') {
    return (headers as { get(n: string): string | null }).get(name) ?? undefined;
  }
  const rec = headers as Record<string, string | readonly string[] | undefined>;
  const key = Object.keys(rec).find((k) => k.toLowerCase() === name);
  const v = key === undefined ? undefined : rec[key];
  return Array.isArray(v) ? (v as string[])[0] : (v as string | undefined);
}

const fail = (code: 'missing_signature' | 'bad_timestamp' | 'bad_signature', reason: string): SvcError =>
  new SvcError('unauthenticated', reason, { code });

function secretKey(secret: string): Buffer {
  const b64 = secret.startsWith('whsec_') ? secret.slice('whsec_'.length) : '';
  const key = Buffer.from(b64, 'base64');
  if (b64 === '' || key.toString('base64') !== b64) {
    throw new SvcError('invalid_request', 'secret: expected whsec_ followed by base64', { field: 'secret' });
  }
  return key;
}

/**
 * Verifies a webhook the daemon sent (Standard Webhooks 1.0) and returns its event. `body` is
 * the request body exactly as received (not re-serialised JSON); `secret` the destination's
 * `whsec_…` secret. Throws an `SvcError`: `missing_signature`, `bad_timestamp` (outside the
 * tolerance: a replay), `bad_signature` (no `v1` signature matches), or `bad_request` (a
 * signed body that is not an event).
 */
export function verifyWebhook(
  headers: Headers,
  body: string | Uint8Array,
  secret: string,
  options: VerifyWebhookOptions = {},
): WebhookEvent {
  const key = secretKey(secret);
  const id = header(headers, 'webhook-id');
  const ts = header(headers, 'webhook-timestamp');
  const sigs = header(headers, 'webhook-signature');
  if (!id || !ts || !sigs) {
    throw fail(
      'missing_signature',
      'expected the webhook-id, webhook-timestamp and webhook-signature headers',
    );
  }
  if (!/^\d{1,15}$/.test(ts)) throw fail('bad_timestamp', 'webhook-timestamp: expected unix seconds');
  const now = Math.floor((options.now ?? new Date()).getTime() / 1000);
  const tolerance = options.toleranceSeconds ?? 300;
  if (Math.abs(now - Number(ts)) > tolerance) {
    throw fail('bad_timestamp', `webhook-timestamp: expected within ${tolerance} s of now`);
  }
  const bytes = typeof body === 'string' ? Buffer.from(body, 'utf8') : Buffer.from(body);
  const expected = createHmac('sha256', key).update(`${id}.${ts}.`, 'utf8').update(bytes).digest();
  // Any of the space-separated signatures may match (a rotation carries two); each is
  // compared in constant time, and unknown versions are skipped.
  let match = false;
  for (const sig of sigs.split(' ')) {
    const [version, mac] = sig.split(',', 2);
    if (version !== 'v1' || mac === undefined) continue;
    const got = Buffer.from(mac, 'base64');
    if (got.length === expected.length && timingSafeEqual(got, expected)) match = true;
  }
  if (!match) throw fail('bad_signature', 'webhook-signature: no v1 signature matches this secret');
  let parsed: unknown;
  try {
    parsed = JSON.parse(bytes.toString('utf8'));
  } catch {
    parsed = undefined;
  }
  const e = parsed as Partial<WebhookEvent> | undefined;
  if (
    !e ||
    typeof e !== 'object' ||
    typeof e.type !== 'string' ||
    typeof e.timestamp !== 'string' ||
    !e.data ||
    typeof e.data !== 'object' ||
    Array.isArray(e.data)
  ) {
    throw new SvcError('invalid_request', 'body: expected {type, timestamp, data}', {
      code: 'bad_request',
      field: 'body',
    });
  }
  return { id, type: e.type, timestamp: e.timestamp, data: e.data };
}
