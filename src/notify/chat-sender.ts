import { chatSettings } from '../core/notify/destination-settings.js';
import type { PostedMessage } from '../store/notify-ports.js';
import { attemptBudget, SPENT } from './attempt-budget.js';
import { callChat, type ChatCall } from './chat-api.js';
import { chatApprovalMessage, chatTextMessage } from './chat-message.js';
import { deliverMessage, type MessagePlatform } from './approval-posting.js';
import type { DestinationSender, SendContext } from './delivery-loop.js';
import type { OutboundOptions } from './outbound-http.js';

/**
 * A message posted to an approver directly is remembered as `<channel>@<user>`: the answer's
 * channel (the direct conversation, which `chat.update` needs) and the user it was posted
 * for (which a retry needs, to skip the approvers already reached). Platform ids hold no `@`.
 */
const DIRECT = '@';

function channelOf(m: PostedMessage): string {
  const at = m.target.indexOf(DIRECT);
  return at < 0 ? m.target : m.target.slice(0, at);
}

function chatPlatform(ctx: SendContext, options: OutboundOptions): MessagePlatform {
  const settings = chatSettings(ctx.destination.settings);
  const base = ctx.destination.url;
  let token: string | undefined;
  const bearer = async () => (token ??= (await ctx.secrets())[0]!);
  const budget = attemptBudget(ctx.policy);
  const call = async (method: 'chat.postMessage' | 'chat.update', body: object): Promise<ChatCall> => {
    const policy = budget();
    if (policy === undefined) return { ok: false, outcome: SPENT };
    return callChat(base, method, await bearer(), body, policy, options);
  };
  return {
    async targets() {
      if (!settings.toApprovers) return [settings.channel!];
      const d = ctx.event.data;
      const capability = typeof d.capability === 'string' ? d.capability : '';
      const requester = typeof d.requester_id === 'string' ? d.requester_id : '';
      const approvers = await ctx.repo.chatApprovers(ctx.event.tenantId, capability, requester);
      if (approvers.length === 0) return { kind: 'retry', status: null, error: 'no_chat_approvers' };
      return approvers.map((a) => a.chatUserId);
    },
    targetOf(m) {
      if (!settings.toApprovers) return settings.channel!;
      const at = m.target.indexOf(DIRECT);
      return at < 0 ? m.target : m.target.slice(at + 1);
    },
    async post(target, message) {
      const content = typeof message === 'string' ? chatTextMessage(message) : chatApprovalMessage(message);
      const r = await call('chat.postMessage', {
        channel: target,
        ...content,
        unfurl_links: false,
        unfurl_media: false,
      });
      if (!r.ok) return r;
      return {
        ok: true,
        status: r.status,
        target: settings.toApprovers ? `${r.channel}${DIRECT}${target}` : r.channel,
        messageId: r.ts,
      };
    },
    async update(m, view) {
      const r = await call('chat.update', {
        channel: channelOf(m),
        ts: m.messageId,
        ...chatApprovalMessage(view),
      });
      // A message someone deleted has nothing left to update: retrying would never end.
      if (!r.ok && r.error === 'message_not_found') return { ok: true, status: 200 };
      return r.ok ? { ok: true, status: r.status } : r;
    },
  };
}

/** The chat sender bound to how it reaches the network (tests give their own resolver or CA). */
export function chatSender(options: OutboundOptions = {}): DestinationSender {
  return (ctx) => deliverMessage(ctx, chatPlatform(ctx, options));
}

export const sendChat: DestinationSender = chatSender({});
