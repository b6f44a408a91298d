import { z } from 'zod';
import { SLUG } from '../../core/ids.js';
import type { DaemonDeps } from '../deps.js';
import { ErrorBodySchema } from '../../http/openapi.js';
import { defineRoute, type AnyRoute } from '../../http/route.js';

const ChannelParams = z.strictObject({ channel: z.string().regex(SLUG).describe('the channel id') });

const ChatForm = z
  .object({
    payload: z
      .string()
      .describe(
        'JSON: {"type":"block_actions","user":{"id":"U…"},"actions":[{"action_id":"approve"|"deny","value":"<approval_id>"}]}',
      ),
  })
  .describe(
    'team chat: signed with X-Chat-Request-Timestamp (unix seconds) and X-Chat-Signature: v0=hex(HMAC-SHA256(secret, "v0:" + timestamp + ":" + raw body))',
  );

const CollabActivity = z
  .object({
    type: z.literal('invoke'),
    id: z.string().optional(),
    serviceUrl: z.string().optional(),
    from: z.object({
      id: z.string(),
      aadObjectId: z.string().describe('maps to an actor’s --collab-user-id'),
    }),
    value: z.object({ approval_id: z.string(), decision: z.enum(['approve', 'deny']) }),
  })
  .describe('collaboration suite: a bot activity, with Authorization: Bearer <JWT> for the bot application');

const ChannelAnswer = z
  .record(z.string(), z.unknown())
  .describe(
    'chat: a Slack-style message (text, blocks, replace_original) that replaces the card; collab: a bot message activity with the outcome',
  );

/**
 * The approval-channel callback (Authentication rule 6): no daemon credential; the channel
 * proves itself. The body stays raw so the chat signature is checked over the exact bytes.
 */
export function channelCallbackRoutes(deps: DaemonDeps): AnyRoute[] {
  return [
    defineRoute({
      method: 'POST',
      url: '/approvals/:channel/callback',
      summary:
        'an approval channel decides an approval as the human its user maps to; authenticated by the channel’s own proof, never a daemon token',
      tag: 'Access',
      auth: 'none',
      params: ChannelParams,
      rawBody: { 'application/x-www-form-urlencoded': ChatForm, 'application/json': CollabActivity },
      responses: {
        200: { description: 'decided and journaled; the answer the channel expects', schema: ChannelAnswer },
        401: {
          description:
            'bad or missing proof: signature, stale timestamp, replay, or a token with the wrong audience, issuer, key, algorithm or lifetime',
          schema: ErrorBodySchema,
        },
        403: {
          description:
            'the user maps to no registered approver (unmapped_user), to the requester (self_approval), or to a human who may not decide it (not_an_approver)',
          schema: ErrorBodySchema,
        },
        404: {
          description: 'no such channel (unknown_channel), or no such approval',
          schema: ErrorBodySchema,
        },
        409: {
          description: 'already decided (already_decided) or expired (approval_expired)',
          schema: ErrorBodySchema,
        },
        503: {
          description: 'the channel’s signing secret or the platform’s keys cannot be had right now',
          schema: ErrorBodySchema,
        },
      },
      handler: async ({ params, request, body, reply }) => {
        const answer = await deps.channels.handle({
          channelId: params.channel,
          headers: request.headers,
          body: body as Buffer,
        });
        return reply.status(answer.status).send(answer.body);
      },
    }),
  ];
}
