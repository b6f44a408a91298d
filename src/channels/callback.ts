import type { IncomingHttpHeaders } from 'node:http';
import { readsAllApprovals } from '../core/approval.js';
import type { ChannelConfig, ChannelKind, ChatChannel, CollabChannel } from '../core/channel.js';
import { SvcError } from '../core/errors.js';
import type { Store } from '../store/ports.js';
import type { DecidedApproval } from '../store/query-ports.js';
import { CHAT_WINDOW_SECONDS, chatReply, parseChatPayload, verifyChatSignature } from './chat.js';
import { collabReply, parseActivity, verifyCollabToken } from './collab.js';
import type { OpenIdKeys } from './openid-keys.js';

/** Where a chat channel's signing secret comes from: the daemon's credential references. */
export interface SecretSource {
  resolve(
    tenantId: string,
    ref: string,
  ): Promise<{ ok: true; value: string } | { ok: false; problem: string }>;
}

export interface CallbackRequest {
  channelId: string;
  headers: IncomingHttpHeaders;
  /** the body exactly as received: the chat signature covers these bytes */
  body: Buffer;
}

export interface CallbackReply {
  status: number;
  body: Record<string, unknown>;
}

// A remembered signature outlives the window it can be accepted in, with room for clock
// differences between daemon processes sharing the database.
const REMEMBER_SECONDS = CHAT_WINDOW_SECONDS + 60;

/**
 * `POST /approvals/{channel}/callback`: the channel proves itself (401 otherwise) before
 * anything in the body is read; its user maps to a registered human by an exact id (403
 * otherwise); and the decision goes through `store.approvals.decide`, the one function
 * every channel uses, so the first decision wins (409 afterwards) whatever the channel.
 */
export class ApprovalChannels {
  constructor(
    private readonly store: Store,
    private readonly secrets: SecretSource,
    private readonly keys: OpenIdKeys,
    private readonly clock: () => Date,
  ) {}

  async handle(req: CallbackRequest): Promise<CallbackReply> {
    const channel = await this.store.channels.get(req.channelId);
    if (!channel) {
      // semantics.md: an unknown channel id is 404. The id is the caller's input: not echoed.
      throw new SvcError('not_found', 'no such approval channel', { code: 'unknown_channel' });
    }
    return channel.kind === 'chat' ? this.chat(channel, req) : this.collab(channel, req);
  }

  private async chat(channel: ChatChannel, req: CallbackRequest): Promise<CallbackReply> {
    const secret = await this.secrets.resolve(channel.tenantId, channel.signingSecretRef);
    if (!secret.ok) {
      // The caller is unauthenticated: the reference and the problem go to the log only.
      throw new SvcError('unavailable', 'this approval channel cannot verify callbacks right now', {
        cause: new Error(`channel ${channel.id}: ${channel.signingSecretRef}: ${secret.problem}`),
        remedy: 'the deployment operator can see why in the daemon log, under this request id',
      });
    }
    const nowSec = Math.floor(this.clock().getTime() / 1000);
    const proof = verifyChatSignature(req.headers, req.body, secret.value, nowSec);
    const fresh = await this.store.channels.rememberSignature(
      channel.id,
      proof.signature,
      proof.timestamp + REMEMBER_SECONDS,
      nowSec,
    );
    if (!fresh) {
      throw new SvcError('unauthenticated', 'this signed request was already received', {
        code: 'replayed_request',
        remedy: 'the chat platform signs every callback afresh; a repeated one is refused',
      });
    }
    const action = parseChatPayload(req.body);
    const decided = await this.decideAs(channel, action.userId, action.approvalId, action.decision);
    return { status: 200, body: chatReply(decided) };
  }

  private async collab(channel: CollabChannel, req: CallbackRequest): Promise<CallbackReply> {
    const claims = await verifyCollabToken(req.headers, channel, this.keys, this.clock());
    const action = parseActivity(req.body, claims);
    const decided = await this.decideAs(channel, action.userId, action.approvalId, action.decision);
    return { status: 200, body: collabReply(decided, action.activityId) };
  }

  /** Decide as the registered human the channel user maps to, exactly; nobody else. */
  private async decideAs(
    channel: ChannelConfig,
    userId: string,
    approvalId: string,
    decision: 'approve' | 'deny',
  ): Promise<DecidedApproval> {
    const kind: ChannelKind = channel.kind;
    const actor = await this.store.channels.approverFor(channel.tenantId, kind, userId);
    if (!actor) {
      throw new SvcError(
        'forbidden',
        `${kind} user ${userId} maps to no registered approver of this tenant`,
        {
          code: 'unmapped_user',
          remedy: `register the person's exact user id: svc actor add … --${kind}-user-id ${userId}`,
        },
      );
    }
    try {
      return await this.store.approvals.decide({
        tenantId: channel.tenantId,
        approvalId,
        deciderId: actor.id,
        decision,
        note: `${kind} channel ${channel.id}, user ${userId}`,
        channel: kind,
        at: this.clock(),
      });
    } catch (err) {
      // A verified channel speaks for a known human: one who may not see the approval is
      // not an approver of it, which is the answer the channel's user needs.
      if (err instanceof SvcError && err.code === 'not_found' && !readsAllApprovals(actor)) {
        throw new SvcError('forbidden', `${actor.id} is not an approver of approval ${approvalId}`, {
          code: 'not_an_approver',
          remedy: 'ask a registered human with the approver role, or one the capability names as approver',
        });
      }
      throw err;
    }
  }
}
