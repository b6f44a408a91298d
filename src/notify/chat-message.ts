import type { ApprovalView } from './approval-message.js';

/**
 * Slack Web API message bodies (Block Kit) for `chat.postMessage` and `chat.update`. Values
 * go in `plain_text` objects, which the platform never parses for mentions, links or
 * formatting; the top-level `text` (the notification preview, read as mrkdwn) has `&`, `<`
 * and `>` escaped, the platform's own rule for showing them literally.
 */

/** the `block_id` of the buttons; the callback reads `action_id` and `value` only */
export const CHAT_ACTIONS_BLOCK = 'svc_approval';

/** Section fields hold at most ten entries and 2000 characters each (Block Kit limits). */
const FIELDS_PER_SECTION = 10;

export function escapeMrkdwn(s: string): string {
  return s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
}

const plain = (text: string) => ({ type: 'plain_text', text, emoji: false });

/** The message of an approval event: its facts and, while it can be decided, Approve / Deny. */
export function chatApprovalMessage(view: ApprovalView): { text: string; blocks: object[] } {
  const blocks: object[] = [{ type: 'section', text: plain(view.headline) }];
  for (let i = 0; i < view.facts.length; i += FIELDS_PER_SECTION) {
    blocks.push({
      type: 'section',
      fields: view.facts.slice(i, i + FIELDS_PER_SECTION).map(([k, v]) => plain(`${k}: ${v}`)),
    });
  }
  if (view.buttons) {
    blocks.push({
      type: 'actions',
      block_id: CHAT_ACTIONS_BLOCK,
      elements: [
        {
          type: 'button',
          action_id: 'approve',
          text: plain('Approve'),
          style: 'primary',
          value: view.approvalId,
        },
        { type: 'button', action_id: 'deny', text: plain('Deny'), style: 'danger', value: view.approvalId },
      ],
    });
  }
  return { text: escapeMrkdwn(view.headline), blocks };
}

/** A message of one line, no buttons (other events, `svc notify test`). */
export function chatTextMessage(line: string): { text: string; blocks: object[] } {
  return { text: escapeMrkdwn(line), blocks: [{ type: 'section', text: plain(line) }] };
}
