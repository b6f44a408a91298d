import { z } from 'zod';
import { collabSettings } from '../core/notify/destination-settings.js';
import { packageVersion } from '../http/version.js';
import { attemptBudget, SPENT } from './attempt-budget.js';
import { deliverMessage, type MessagePlatform, type Posted } from './approval-posting.js';
import { collabApprovalActivity, collabTextActivity } from './collab-message.js';
import { CollabTokens } from './collab-token.js';
import type { DestinationSender, SendContext } from './delivery-loop.js';
import { exchangeOutbound, type OutboundAnswer, type OutboundOptions } from './outbound-http.js';

/**
 * The collab sender (Bot Framework Connector shape): the activity is POSTed to
 * `${serviceUrl}/v3/conversations/${conversation}/activities` with the bot's bearer token,
 * the answer's activity `id` remembered, and after the decision the same activity PUT with
 * the outcome card. A 401 from the connector drops the cached token and tries once more
 * with a new one.
 */

const Resource = z.object({ id: z.string().min(1).max(500) });

function collabPlatform(ctx: SendContext, tokens: CollabTokens, options: OutboundOptions): MessagePlatform {
  const s = collabSettings(ctx.destination.settings);
  const activities = `${ctx.destination.url.replace(/\/+$/, '')}/v3/conversations/${encodeURIComponent(s.conversationId)}/activities`;

  const budget = attemptBudget(ctx.policy);
  const call = async (method: 'POST' | 'PUT', url: string, activity: object): Promise<OutboundAnswer> => {
    let answer: OutboundAnswer | undefined;
    for (let attempt = 0; attempt < 2; attempt++) {
      const forToken = budget();
      if (forToken === undefined) return { outcome: SPENT };
      const t = await tokens.token(ctx, forToken);
      if (!t.ok) return { outcome: t.outcome };
      const policy = budget();
      if (policy === undefined) return { outcome: SPENT };
      answer = await exchangeOutbound(
        {
          method,
          url,
          headers: {
            'content-type': 'application/json; charset=utf-8',
            authorization: `Bearer ${t.token}`,
            'user-agent': `svc/${packageVersion()}`,
          },
          body: JSON.stringify(activity),
        },
        policy,
        options,
      );
      const o = answer.outcome;
      if (!(o.kind === 'retry' && o.status === 401)) break;
      tokens.drop(ctx);
    }
    return answer!;
  };

  return {
    async targets() {
      return [s.conversationId];
    },
    targetOf() {
      return s.conversationId;
    },
    async post(_target, message): Promise<Posted> {
      const activity =
        typeof message === 'string' ? collabTextActivity(message) : collabApprovalActivity(message);
      const answer = await call('POST', activities, activity);
      const o = answer.outcome;
      if (o.kind === 'gone') return { ok: false, outcome: o };
      if (o.kind !== 'delivered') return { ok: false, outcome: o };
      let id: string | undefined;
      try {
        const r = Resource.safeParse(JSON.parse(answer.body?.toString('utf8') ?? ''));
        if (r.success) id = r.data.id;
      } catch {
        // not JSON: never quoted
      }
      if (id === undefined && typeof message !== 'string') {
        return { ok: false, outcome: { kind: 'retry', status: o.status, error: 'collab_bad_answer' } };
      }
      return { ok: true, status: o.status, target: s.conversationId, messageId: id ?? '' };
    },
    async update(m, view) {
      const activity = { ...collabApprovalActivity(view), id: m.messageId };
      const answer = await call('PUT', `${activities}/${encodeURIComponent(m.messageId)}`, activity);
      const o = answer.outcome;
      // A deleted activity has nothing left to update: retrying would never end.
      if (o.kind === 'delivered') return { ok: true, status: o.status };
      if (o.kind === 'retry' && o.status === 404) return { ok: true, status: 404 };
      return { ok: false, outcome: o };
    },
  };
}

/** The collab sender bound to how it reaches the network; its token cache lives with it. */
export function collabSender(options: OutboundOptions = {}): DestinationSender {
  const tokens = new CollabTokens(options);
  return (ctx) => deliverMessage(ctx, collabPlatform(ctx, tokens, options));
}

export const sendCollab: DestinationSender = collabSender({});
