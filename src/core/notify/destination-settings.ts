import { z } from 'zod';
import { invalidField, SvcError } from '../errors.js';

/**
 * What each destination kind needs besides its URL and its secret (issue 26). Settings are
 * never secret: they are listed, exported by `svc apply` and shown in the console. The secret
 * (the chat bot token, the collab client secret, the SMTP password, the webhook signing
 * secret) is sealed in the secret store as `notify.<id>`.
 */

export const DESTINATION_KINDS = ['webhook', 'chat', 'collab', 'email'] as const;
export type DestinationKind = (typeof DESTINATION_KINDS)[number];

/** team chat (Slack Web API shape): where `chat.postMessage` posts */
export interface ChatSettings {
  /** a channel id or name; null when posting to the approvers directly */
  channel: string | null;
  /** post to each approver's registered chat user id (actor `--chat-user-id`) */
  toApprovers: boolean;
}

/** collaboration suite (Bot Framework shape): the conversation and how the bot gets its token */
export interface CollabSettings {
  conversationId: string;
  /** the client-credentials token endpoint (OAuth 2.0) */
  tokenUrl: string;
  /** the bot's application (client) id */
  clientId: string;
  scope: string;
}

/** email over SMTP with STARTTLS; the destination URL is `smtp://host:port` */
export interface EmailSettings {
  from: string;
  to: string[];
  /** SMTP user name; its password is the destination's secret. Null: no authentication */
  username: string | null;
  /** the console's base URL, for the link to the approval page (which asks to sign in) */
  consoleUrl: string;
  /** a PEM file of the CA that signs the SMTP server's certificate, besides the system's */
  caFile: string | null;
}

/** Every kind-specific option a command or a deployment document can give, by flag name. */
export interface DestinationOptions {
  channel?: string | undefined;
  toApprovers?: boolean | undefined;
  conversation?: string | undefined;
  tokenUrl?: string | undefined;
  clientId?: string | undefined;
  scope?: string | undefined;
  from?: string | undefined;
  to?: readonly string[] | undefined;
  smtpUser?: string | undefined;
  consoleUrl?: string | undefined;
  smtpCaFile?: string | undefined;
}

const FLAG: Record<keyof DestinationOptions, string> = {
  channel: 'channel',
  toApprovers: 'to-approvers',
  conversation: 'conversation',
  tokenUrl: 'token-url',
  clientId: 'client-id',
  scope: 'scope',
  from: 'from',
  to: 'to',
  smtpUser: 'smtp-user',
  consoleUrl: 'console-url',
  smtpCaFile: 'smtp-ca-file',
};

const OWN: Record<DestinationKind, (keyof DestinationOptions)[]> = {
  webhook: [],
  chat: ['channel', 'toApprovers'],
  collab: ['conversation', 'tokenUrl', 'clientId', 'scope'],
  email: ['from', 'to', 'smtpUser', 'consoleUrl', 'smtpCaFile'],
};

/** The vendor's defaults, used when the option is not given. */
export const CHAT_API_BASE = 'https://slack.com/api';
export const COLLAB_TOKEN_URL = 'https://login.microsoftonline.com/botframework.com/oauth2/v2.0/token';
export const COLLAB_SCOPE = 'https://api.botframework.com/.default';
export const SMTP_SUBMISSION_PORT = 587;

/** Whether a kind authenticates with a secret the administrator supplies (not one svc makes). */
export function suppliedSecret(kind: DestinationKind, settings: Readonly<Record<string, unknown>>): boolean {
  if (kind === 'webhook') return false;
  if (kind === 'email') return settings.username !== null && settings.username !== undefined;
  return true;
}

/** Printable, no spaces, bounded: ids the platforms issue. */
function platformId(field: string, value: string | undefined, max: number): string {
  if (value === undefined || value.length === 0 || value.length > max || !/^[\x21-\x7e]+$/.test(value)) {
    throw invalidField(field, `1 to ${max} printable characters without spaces`);
  }
  return value;
}

const ADDRESS =
  /^[A-Za-z0-9.!#$%&'*+/=?^_`{|}~-]{1,64}@[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?(?:\.[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?)*$/;

/** A bare address (no display name, no comment): nothing a header injection could ride on. */
export function checkAddress(field: string, value: string | undefined): string {
  if (value === undefined || value.length > 254 || !ADDRESS.test(value)) {
    throw invalidField(field, 'an email address such as approvals@example.org (no display name)');
  }
  return value;
}

/**
 * The kind's settings from the options given; an option of another kind is refused by its
 * flag name rather than ignored. URLs among them (`token-url`, `console-url`) are checked by
 * the caller, which knows the deployment's URL rules; here only their presence.
 */
export function checkSettings(kind: DestinationKind, o: DestinationOptions): Record<string, unknown> {
  for (const key of Object.keys(FLAG) as (keyof DestinationOptions)[]) {
    if (o[key] !== undefined && o[key] !== false && !OWN[kind].includes(key)) {
      throw new SvcError('invalid_request', `${FLAG[key]}: not used by a ${kind} destination`, {
        field: FLAG[key],
      });
    }
  }
  if (kind === 'webhook') return {};
  if (kind === 'chat') {
    const toApprovers = o.toApprovers === true;
    if ((o.channel === undefined) === !toApprovers) {
      throw new SvcError(
        'invalid_request',
        'channel: a chat destination posts to one --channel, or with --to-approvers to each approver; give exactly one',
        { field: 'channel' },
      );
    }
    const settings: ChatSettings = {
      channel: o.channel === undefined ? null : platformId('channel', o.channel, 80),
      toApprovers,
    };
    return { ...settings };
  }
  if (kind === 'collab') {
    const settings: CollabSettings = {
      conversationId: platformId('conversation', o.conversation, 500),
      tokenUrl: o.tokenUrl ?? COLLAB_TOKEN_URL,
      clientId: platformId('client-id', o.clientId, 200),
      scope: platformId('scope', o.scope ?? COLLAB_SCOPE, 500),
    };
    return { ...settings };
  }
  const to = o.to ?? [];
  if (to.length === 0 || to.length > 50)
    throw invalidField('to', '1 to 50 recipient addresses (repeat --to)');
  if (o.consoleUrl === undefined) {
    throw new SvcError(
      'invalid_request',
      "console-url: an email destination needs the console's URL for the link to the approval",
      { field: 'console-url' },
    );
  }
  const settings: EmailSettings = {
    from: checkAddress('from', o.from),
    to: [...new Set(to.map((a) => checkAddress('to', a)))],
    username: o.smtpUser === undefined ? null : platformId('smtp-user', o.smtpUser, 320),
    consoleUrl: o.consoleUrl,
    caFile: o.smtpCaFile ?? null,
  };
  return { ...settings };
}

const Chat = z.object({ channel: z.string().nullable(), toApprovers: z.boolean() });
const Collab = z.object({
  conversationId: z.string(),
  tokenUrl: z.string(),
  clientId: z.string(),
  scope: z.string(),
});
const Email = z.object({
  from: z.string(),
  to: z.array(z.string()),
  username: z.string().nullable(),
  consoleUrl: z.string(),
  caFile: z.string().nullable(),
});

/** A stored destination's settings read back; a row that does not parse is a store fault. */
function read<T>(schema: z.ZodType<T>, kind: string, settings: unknown): T {
  const r = schema.safeParse(settings);
  if (!r.success) throw new SvcError('internal', `the stored settings of a ${kind} destination do not parse`);
  return r.data;
}

export const chatSettings = (s: unknown): ChatSettings => read(Chat, 'chat', s);
export const collabSettings = (s: unknown): CollabSettings => read(Collab, 'collab', s);
export const emailSettings = (s: unknown): EmailSettings => read(Email, 'email', s);
