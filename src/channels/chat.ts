import { createHmac, timingSafeEqual } from 'node:crypto';
import type { IncomingHttpHeaders } from 'node:http';
import { z } from 'zod';
import { SvcError, type ExtensionCode } from '../core/errors.js';
import { parseJsonText } from '../core/json-text.js';
import { firstRefusedText, refusedTextError } from '../core/request-text.js';
import type { DecidedApproval } from '../store/query-ports.js';

/**
 * The team-chat channel (semantics.md, Approvals): a form body signed with
 * `v0=hex(HMAC-SHA256(secret, "v0:" + timestamp + ":" + raw body))`, a timestamp within five
 * minutes, and a payload whose action approves or denies an approval as the chat user.
 */
export const CHAT_WINDOW_SECONDS = 300;

const TIMESTAMP = /^[0-9]{1,12}$/;
const SIGNATURE = /^v0=([0-9a-f]{64})$/;

const proofFailure = (code: ExtensionCode, reason: string) =>
  new SvcError('unauthenticated', reason, {
    code,
    remedy: 'the chat platform signs each callback with the signing secret the channel is configured with',
  });

function header(headers: IncomingHttpHeaders, name: string): string | undefined {
  const v = headers[name];
  return typeof v === 'string' ? v : undefined;
}

export interface ChatProof {
  timestamp: number;
  /** the hex signature, remembered to refuse a replay */
  signature: string;
}

/**
 * Check the signature over the exact bytes received, before anything in them is read.
 * The comparison is constant-time; a stale or future timestamp is refused even when the
 * signature is good, which bounds how long a captured request could be replayed.
 */
export function verifyChatSignature(
  headers: IncomingHttpHeaders,
  raw: Buffer,
  secret: string,
  nowSec: number,
): ChatProof {
  const ts = header(headers, 'x-chat-request-timestamp');
  const sig = header(headers, 'x-chat-signature');
  if (ts === undefined || sig === undefined) {
    throw proofFailure('missing_signature', 'X-Chat-Request-Timestamp and X-Chat-Signature are required');
  }
  if (!TIMESTAMP.test(ts))
    throw proofFailure('bad_timestamp', 'X-Chat-Request-Timestamp: expected unix seconds');
  const timestamp = Number(ts);
  if (Math.abs(nowSec - timestamp) > CHAT_WINDOW_SECONDS) {
    throw proofFailure(
      'stale_request',
      'the request timestamp is more than five minutes from the daemon clock',
    );
  }
  const m = SIGNATURE.exec(sig);
  if (!m) throw proofFailure('bad_signature', 'X-Chat-Signature: expected v0= and 64 lowercase hex digits');
  const expected = createHmac('sha256', secret).update(`v0:${ts}:`).update(raw).digest();
  if (!timingSafeEqual(expected, Buffer.from(m[1]!, 'hex'))) {
    throw proofFailure('bad_signature', 'the signature does not match the request');
  }
  return { timestamp, signature: m[1]! };
}

const ChatPayload = z.object({
  type: z.literal('block_actions'),
  user: z.object({ id: z.string().min(1).max(128) }),
  actions: z
    .array(z.object({ action_id: z.enum(['approve', 'deny']), value: z.string().min(1).max(200) }))
    .length(1),
});

/** The first offending field of a channel payload, named by its path inside the payload. */
export function payloadFailure(root: string, error: z.ZodError): SvcError {
  const issue = error.issues[0];
  const field = [root, ...(issue?.path ?? []).map(String)].join('.');
  return new SvcError(
    'invalid_request',
    `${field}: ${(issue?.message ?? 'invalid').replace(/^Invalid input: /, '')}`,
    {
      field,
    },
  );
}

export interface ChatAction {
  userId: string;
  approvalId: string;
  decision: 'approve' | 'deny';
}

/** The `payload=<JSON>` form field, read only after the signature held. */
export function parseChatPayload(raw: Buffer): ChatAction {
  const payload = new URLSearchParams(raw.toString('utf8')).get('payload');
  if (payload === null) {
    throw new SvcError('invalid_request', 'payload: expected the form field payload=<JSON>', {
      field: 'payload',
    });
  }
  const parsed = parseJsonText(Buffer.from(payload, 'utf8'), 'payload');
  const bad = firstRefusedText(parsed, 'payload');
  if (bad) throw refusedTextError(bad.path, bad.nul);
  const r = ChatPayload.safeParse(parsed);
  if (!r.success) throw payloadFailure('payload', r.error);
  const action = r.data.actions[0]!;
  return { userId: r.data.user.id, approvalId: action.value, decision: action.action_id };
}

export function decidedText(d: DecidedApproval): string {
  const a = d.approval;
  const verdict = a.status === 'approved' ? 'Approved' : 'Denied';
  return `${verdict} by ${a.decidedBy ?? '?'}: ${a.capability} ${a.action} for ${a.requesterId} on task ${a.taskId} (${a.id})`;
}

/** A Slack-style message that replaces the original card, so everyone sees it was decided. */
export function chatReply(d: DecidedApproval): Record<string, unknown> {
  const text = decidedText(d);
  return {
    response_type: 'in_channel',
    replace_original: true,
    text,
    blocks: [
      { type: 'section', text: { type: 'mrkdwn', text } },
      {
        type: 'context',
        elements: [{ type: 'mrkdwn', text: `journal receipt ${d.receiptId} (sequence ${d.sequence})` }],
      },
    ],
    metadata: {
      event_type: 'svc_approval_decided',
      event_payload: {
        approval_id: d.approval.id,
        status: d.approval.status,
        decided_by: d.approval.decidedBy,
        receipt_id: d.receiptId,
      },
    },
  };
}
