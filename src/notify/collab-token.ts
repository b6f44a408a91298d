import { z } from 'zod';
import { collabSettings } from '../core/notify/destination-settings.js';
import { packageVersion } from '../http/version.js';
import type { SendContext } from './delivery-loop.js';
import { exchangeOutbound, type OutboundOptions } from './outbound-http.js';
import type { OutboundPolicy, SendOutcome } from './outbound-policy.js';

/**
 * The collab bot's access token (OAuth 2.0 client credentials, RFC 6749 section 4.4): asked
 * of the destination's token endpoint with its client id, its client secret (the
 * destination's secret, opened only when a token is needed) and its scope, through the same
 * outbound policy as every send. Kept in this process's memory only, per destination, until
 * shortly before it expires; never logged, stored or put in an outcome.
 */

/** A token is dropped this long before its stated expiry, or at half its life if shorter. */
const MARGIN_SECONDS = 300;

const TokenAnswer = z.object({
  access_token: z.string().min(1).max(16_384),
  expires_in: z.coerce
    .number()
    .int()
    .positive()
    .max(86_400 * 7),
  token_type: z.string().optional(),
});

export type TokenResult = { ok: true; token: string } | { ok: false; outcome: SendOutcome };

export class CollabTokens {
  private readonly cache = new Map<string, { token: string; until: number }>();

  constructor(private readonly options: OutboundOptions = {}) {}

  /** The key also holds what the token was asked with: a destination added again asks anew. */
  private key(ctx: SendContext): string {
    const d = ctx.destination;
    const s = collabSettings(d.settings);
    return JSON.stringify([d.tenantId, d.id, d.createdAt, s.tokenUrl, s.clientId, s.scope]);
  }

  /** The connector refused the token (401): the next call asks for a new one. */
  drop(ctx: SendContext): void {
    this.cache.delete(this.key(ctx));
  }

  async token(ctx: SendContext, policy: OutboundPolicy): Promise<TokenResult> {
    const key = this.key(ctx);
    const cached = this.cache.get(key);
    const nowMs = ctx.now.getTime();
    if (cached !== undefined && cached.until > nowMs) return { ok: true, token: cached.token };
    this.cache.delete(key);
    const s = collabSettings(ctx.destination.settings);
    const secret = (await ctx.secrets())[0]!;
    const answer = await exchangeOutbound(
      {
        method: 'POST',
        url: s.tokenUrl,
        headers: {
          'content-type': 'application/x-www-form-urlencoded',
          accept: 'application/json',
          'user-agent': `svc/${packageVersion()}`,
        },
        body: new URLSearchParams({
          grant_type: 'client_credentials',
          client_id: s.clientId,
          client_secret: secret,
          scope: s.scope,
        }).toString(),
      },
      policy,
      this.options,
    );
    const o = answer.outcome;
    if (o.kind === 'refused') return { ok: false, outcome: { kind: 'refused', error: `token_${o.error}` } };
    if (o.kind !== 'delivered') {
      // A token endpoint's 410 says nothing about the conversation: a retry, never a disable.
      const error = o.kind === 'gone' ? 'status_410' : o.error;
      return { ok: false, outcome: { kind: 'retry', status: o.status, error: `token_${error}` } };
    }
    let parsed: z.infer<typeof TokenAnswer> | undefined;
    try {
      const r = TokenAnswer.safeParse(JSON.parse(answer.body?.toString('utf8') ?? ''));
      if (r.success) parsed = r.data;
    } catch {
      // not JSON: never quoted
    }
    if (parsed === undefined) {
      return { ok: false, outcome: { kind: 'retry', status: o.status, error: 'token_bad_answer' } };
    }
    const margin = Math.min(MARGIN_SECONDS, Math.floor(parsed.expires_in / 2));
    this.cache.set(key, { token: parsed.access_token, until: nowMs + (parsed.expires_in - margin) * 1000 });
    return { ok: true, token: parsed.access_token };
  }
}
