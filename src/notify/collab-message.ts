import type { ApprovalView } from './approval-message.js';

/**
 * Bot Framework message activities carrying an Adaptive Card. Every value is a `TextRun` of
 * a `RichTextBlock`, which the card hosts never read as markdown (a `TextBlock` or a
 * `FactSet` value would be), so a typed intent cannot turn into a link or fake formatting.
 * The buttons are `Action.Submit` whose `data` is what the collab callback reads:
 * `{approval_id, decision}`.
 */

export const ADAPTIVE_CARD = 'application/vnd.microsoft.card.adaptive';

const run = (text: string, bold = false) => ({
  type: 'TextRun',
  text,
  ...(bold ? { weight: 'Bolder' } : {}),
});
const line = (...inlines: object[]) => ({ type: 'RichTextBlock', inlines });

function card(body: object[], actions: object[]): object {
  return {
    type: 'message',
    attachments: [
      {
        contentType: ADAPTIVE_CARD,
        content: {
          $schema: 'http://adaptivecards.io/schemas/adaptive-card.json',
          type: 'AdaptiveCard',
          version: '1.4',
          body,
          ...(actions.length > 0 ? { actions } : {}),
        },
      },
    ],
  };
}

export function collabApprovalActivity(view: ApprovalView): object {
  const body = [
    line(run(view.headline, true)),
    ...view.facts.map(([k, v]) => line(run(`${k}: `, true), run(v))),
  ];
  const actions = view.buttons
    ? [
        {
          type: 'Action.Submit',
          title: 'Approve',
          style: 'positive',
          data: { approval_id: view.approvalId, decision: 'approve' },
        },
        {
          type: 'Action.Submit',
          title: 'Deny',
          style: 'destructive',
          data: { approval_id: view.approvalId, decision: 'deny' },
        },
      ]
    : [];
  return { ...card(body, actions), text: view.headline, textFormat: 'plain' };
}

export function collabTextActivity(text: string): object {
  return { type: 'message', text, textFormat: 'plain' };
}
