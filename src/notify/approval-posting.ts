import type { PostedMessage } from '../store/notify-ports.js';
import { approvalView, eventText, type ApprovalView } from './approval-message.js';
import type { SendContext } from './delivery-loop.js';
import type { SendOutcome } from './outbound-policy.js';

/**
 * What the chat and collab senders share: which message an event becomes, where it goes, and
 * how a decision turns the messages already posted into the outcome. A platform says how to
 * post and update one message; this decides when.
 */

export type Step = { ok: true; status: number } | { ok: false; outcome: SendOutcome };
export type Posted =
  { ok: true; status: number; target: string; messageId: string } | { ok: false; outcome: SendOutcome };

export interface MessagePlatform {
  /** where this event's message goes (a channel, each approver, the conversation), or why nowhere */
  targets(): Promise<string[] | SendOutcome>;
  /** the target a remembered message was posted for, as `targets()` names it */
  targetOf(m: PostedMessage): string;
  post(target: string, message: ApprovalView | string): Promise<Posted>;
  update(m: PostedMessage, view: ApprovalView): Promise<Step>;
}

/** Delivered with the platform's last success status (200 when there was nothing left to do). */
const delivered = (status = 200): SendOutcome => ({ kind: 'delivered', status });

/**
 * Post to every target not yet posted for this event, each remembered as soon as it
 * succeeds, so a retry after a partial failure never posts twice to the same place. Every
 * target is tried; the first failure is the attempt's outcome.
 */
async function postOnce(
  ctx: SendContext,
  platform: MessagePlatform,
  approvalId: string,
  view: ApprovalView,
  targets: string[],
): Promise<SendOutcome> {
  const done = new Set(
    (await ctx.repo.messages(ctx.event.tenantId, ctx.destination.id, approvalId))
      .filter((m) => m.eventId === ctx.event.id)
      .map((m) => platform.targetOf(m)),
  );
  let failed: SendOutcome | undefined;
  let status: number | undefined;
  for (const target of targets) {
    if (done.has(target)) continue;
    const r = await platform.post(target, view);
    if (!r.ok) {
      failed ??= r.outcome;
      continue;
    }
    status = r.status;
    await ctx.repo.saveMessage({
      tenantId: ctx.event.tenantId,
      destinationId: ctx.destination.id,
      approvalId,
      target: r.target,
      messageId: r.messageId,
      eventId: ctx.event.id,
      postedAt: ctx.now.toISOString(),
    });
  }
  return failed ?? delivered(status);
}

/**
 * The outcome of a decided or expired approval: every message posted for it here is updated
 * (no buttons left). While a post for it is still pending, the attempt is a retry
 * (`message_not_posted_yet`) so the message posted late is updated too; an update is
 * idempotent, so the ones already updated take the same content again. When nothing was
 * posted and nothing will be, the outcome is posted as a new message.
 */
async function settle(
  ctx: SendContext,
  platform: MessagePlatform,
  view: ApprovalView,
  targets: () => Promise<string[] | SendOutcome>,
): Promise<SendOutcome> {
  const { tenantId } = ctx.event;
  const posted = await ctx.repo.messages(tenantId, ctx.destination.id, view.approvalId);
  const earlier = posted.filter((m) => m.eventId !== ctx.event.id);
  let failed: SendOutcome | undefined;
  let status: number | undefined;
  for (const m of earlier) {
    const r = await platform.update(m, view);
    if (!r.ok) failed ??= r.outcome;
    else status = r.status;
  }
  if (failed) return failed;
  if (await ctx.repo.postPending(tenantId, ctx.destination.id, view.approvalId)) {
    return { kind: 'retry', status: null, error: 'message_not_posted_yet' };
  }
  if (earlier.length > 0) return delivered(status);
  const to = await targets();
  if (!Array.isArray(to)) return to;
  return postOnce(ctx, platform, view.approvalId, view, to);
}

/** One attempt at one event for a chat or collab destination. */
export async function deliverMessage(ctx: SendContext, platform: MessagePlatform): Promise<SendOutcome> {
  const view = approvalView(ctx.event);
  if (view === undefined) {
    // Not about an approval (or `svc notify test`): one line, nothing to update later.
    const to = await platform.targets();
    if (!Array.isArray(to)) return to;
    const line = eventText(ctx.event);
    let failed: SendOutcome | undefined;
    let status: number | undefined;
    for (const target of to) {
      const r = await platform.post(target, line);
      if (!r.ok) failed ??= r.outcome;
      else status = r.status;
    }
    return failed ?? delivered(status);
  }
  if (view.phase === 'decided' || view.phase === 'expired') {
    return settle(ctx, platform, view, () => platform.targets());
  }
  const to = await platform.targets();
  if (!Array.isArray(to)) return to;
  return postOnce(ctx, platform, view.approvalId, view, to);
}
