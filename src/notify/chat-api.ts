import { z } from 'zod';
import { packageVersion } from '../http/version.js';
import { exchangeOutbound, type OutboundOptions } from './outbound-http.js';
import type { OutboundPolicy, SendOutcome } from './outbound-policy.js';

/**
 * One call of the team chat's Web API (Slack shape): a JSON POST to `${base}/${method}` with
 * the bot token as a bearer. The platform answers HTTP 200 with `{"ok": false, "error": …}`
 * when the call failed, so the status line is not the verdict: the answer is parsed, and a
 * failure becomes a coded retry `chat_<error>` for an error the platform documents, or
 * `chat_error` for any other text (the platform's words are never echoed into a record).
 */

export const CHAT_ERRORS = [
  'access_denied',
  'account_inactive',
  'as_user_not_supported',
  'cant_update_message',
  'channel_not_found',
  'duplicate_channel_not_found',
  'edit_window_closed',
  'ekm_access_denied',
  'fatal_error',
  'internal_error',
  'invalid_arguments',
  'invalid_auth',
  'invalid_blocks',
  'invalid_blocks_format',
  'invalid_charset',
  'invalid_form_data',
  'invalid_json',
  'is_archived',
  'message_not_found',
  'method_deprecated',
  'missing_scope',
  'msg_too_long',
  'no_permission',
  'no_text',
  'not_allowed_token_type',
  'not_authed',
  'not_in_channel',
  'org_login_required',
  'ratelimited',
  'rate_limited',
  'request_timeout',
  'restricted_action',
  'service_unavailable',
  'team_access_not_granted',
  'team_added_to_org',
  'token_expired',
  'token_revoked',
  'too_many_attachments',
  'user_not_found',
] as const;

const KNOWN = new Set<string>(CHAT_ERRORS);

/** `chat_<error>` for a documented error, else `chat_error`. */
export function chatErrorCode(error: unknown): string {
  return typeof error === 'string' && KNOWN.has(error) ? `chat_${error}` : 'chat_error';
}

const Answer = z.object({
  ok: z.boolean(),
  error: z.string().optional(),
  channel: z.string().min(1).max(200).optional(),
  ts: z.string().min(1).max(100).optional(),
});

export type ChatCall =
  | { ok: true; status: number; channel: string; ts: string }
  | { ok: false; outcome: SendOutcome; error?: string };

export async function callChat(
  base: string,
  method: 'chat.postMessage' | 'chat.update',
  token: string,
  body: object,
  policy: OutboundPolicy,
  options: OutboundOptions,
): Promise<ChatCall> {
  const answer = await exchangeOutbound(
    {
      method: 'POST',
      url: `${base.replace(/\/+$/, '')}/${method}`,
      headers: {
        'content-type': 'application/json; charset=utf-8',
        authorization: `Bearer ${token}`,
        'user-agent': `svc/${packageVersion()}`,
      },
      body: JSON.stringify(body),
    },
    policy,
    options,
  );
  const { outcome } = answer;
  // A 410 from a chat API is not a receiver saying "stop": it must not disable the destination.
  if (outcome.kind === 'gone')
    return { ok: false, outcome: { kind: 'retry', status: 410, error: 'status_410' } };
  if (outcome.kind !== 'delivered') return { ok: false, outcome };
  let parsed: z.infer<typeof Answer> | undefined;
  try {
    const r = Answer.safeParse(JSON.parse(answer.body?.toString('utf8') ?? ''));
    if (r.success) parsed = r.data;
  } catch {
    // not JSON: told apart below, never quoted
  }
  if (parsed === undefined) {
    return { ok: false, outcome: { kind: 'retry', status: outcome.status, error: 'chat_bad_answer' } };
  }
  if (!parsed.ok) {
    const code = chatErrorCode(parsed.error);
    return {
      ok: false,
      outcome: { kind: 'retry', status: outcome.status, error: code },
      ...(code !== 'chat_error' ? { error: parsed.error! } : {}),
    };
  }
  if (parsed.channel === undefined || parsed.ts === undefined) {
    return { ok: false, outcome: { kind: 'retry', status: outcome.status, error: 'chat_bad_answer' } };
  }
  return { ok: true, status: outcome.status, channel: parsed.channel, ts: parsed.ts };
}
