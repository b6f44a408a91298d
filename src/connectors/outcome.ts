import { resolvePointer } from '../core/json-pointer.js';

/** What became of one call to a provider, as the daemon saw it. */
export interface ProviderOutcome {
  outcome: 'succeeded' | 'failed' | 'unknown';
  /** false only when the request certainly never left the daemon */
  sent: boolean;
  status: number | null;
  effectId: string | null;
  /** hex SHA-256 of the response body, when it was read whole */
  digest: string | null;
  bytes: number;
  error: 'not_sent' | 'timeout' | 'reset' | 'response_too_large' | 'transport' | null;
  reason: string;
  /** the provider's JSON body, for operations that return it; never journaled */
  body?: unknown;
}

export const UNCERTAIN =
  'the effect may have happened: reconcile with the provider and GET /v1/receipts?task_id=… before acting again; do not resend with a new effect key';

/**
 * The outcome a status line allows us to claim. Only 2xx with the whole body read is a
 * success; 4xx is the provider refusing the request. Anything else (a redirect not followed,
 * a 5xx that a gateway may have sent after the backend acted) is unknown, never failed:
 * "failed" invites a retry, and a retry of an effect that happened is a second effect.
 */
export function outcomeOfStatus(
  status: number,
  whole: boolean,
  limit: number,
): Pick<ProviderOutcome, 'outcome' | 'error' | 'reason'> {
  if (status >= 400 && status < 500) {
    return { outcome: 'failed', error: null, reason: `the provider refused the request (HTTP ${status})` };
  }
  if (status >= 200 && status < 300) {
    return whole
      ? { outcome: 'succeeded', error: null, reason: `the provider answered HTTP ${status}` }
      : {
          outcome: 'unknown',
          error: 'response_too_large',
          reason: `the provider answered HTTP ${status} with a body over ${limit} bytes, which was not read; ${UNCERTAIN}`,
        };
  }
  const what = status >= 300 && status < 400 ? 'a redirect, which is not followed' : 'a provider error';
  return {
    outcome: 'unknown',
    error: null,
    reason: `the provider answered HTTP ${status} (${what}); ${UNCERTAIN}`,
  };
}

/** The effect id at `pointer` in a JSON body: a string or a number, else none. */
export function effectIdOf(body: unknown, pointer: string | null): string | null {
  if (pointer === null) return null;
  const v = resolvePointer(body, pointer);
  const id = typeof v === 'string' ? v : typeof v === 'number' && Number.isFinite(v) ? String(v) : null;
  return id !== null && id.length > 0 && id.length <= 1000 ? id : null;
}

/** A body handed back to a caller, with every occurrence of the secrets replaced. */
export function scrub(value: unknown, secrets: readonly string[]): unknown {
  const clean = (s: string) => secrets.reduce((t, x) => (x === '' ? t : t.replaceAll(x, '[redacted]')), s);
  if (typeof value === 'string') return clean(value);
  if (Array.isArray(value)) return value.map((v) => scrub(v, secrets));
  if (value !== null && typeof value === 'object') {
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [clean(k), scrub(v, secrets)]));
  }
  return value;
}
