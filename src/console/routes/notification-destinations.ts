import { z } from 'zod';
import { parseDuration } from '../../core/duration.js';
import { SvcError } from '../../core/errors.js';
import { requireHuman } from '../../http/auth.js';
import { ErrorBodySchema } from '../../http/openapi.js';
import { defineRoute, type AnyRoute } from '../../http/route.js';
import { DEFAULT_OUTBOUND_POLICY } from '../../notify/outbound-policy.js';
import { addDestination, removeDestination } from '../../provisioning/notify.js';
import { testDestination } from '../../provisioning/notify-delivery.js';
import { rotateDestinationSecret } from '../../provisioning/notify-rotation.js';
import { DESTINATION_KINDS } from '../../store/notify-ports.js';
import type { DataDir } from '../../store/data-dir.js';
import type { ConsoleDeps } from '../deps.js';
import { consoleDestination, Destination } from './notifications.js';

const MINUTE = 60_000;
const text = (max: number) => z.string().min(1).max(max);

const AddBody = z.strictObject({
  destination_id: text(63).describe('a slug, unique in the tenant'),
  kind: z.enum(DESTINATION_KINDS as unknown as ['webhook', 'chat', 'collab', 'email']),
  url: text(2048)
    .optional()
    .describe(
      'webhook: the receiver; chat: the Web API base (default the vendor’s); collab: the connector service URL; email: smtp://HOST[:PORT]',
    ),
  events: z.array(text(100)).min(1).max(50).describe("event types, families such as 'approval.*', or '*'"),
  secret: z
    .string()
    .max(4096)
    .optional()
    .describe(
      'chat: the bot token; collab: the client secret; email: the SMTP password. Write-only: sealed, never sent back',
    ),
  channel: text(200).optional().describe('chat: the channel id'),
  to_approvers: z.boolean().optional().describe("chat: post to each approver's chat user id"),
  conversation: text(500).optional().describe('collab: the conversation id'),
  token_url: text(2048).optional().describe('collab: the client-credentials token endpoint'),
  client_id: text(200).optional().describe("collab: the bot's application id"),
  scope: text(500).optional().describe('collab: the scope asked for'),
  from: text(320).optional().describe('email: the sender address'),
  to: z.array(text(320)).max(50).optional().describe('email: the recipient addresses'),
  smtp_user: text(320).optional().describe('email: the SMTP user name'),
  console_url: text(2048).optional().describe("email: the console's URL, for the link to the approval"),
  remind_after: text(20).optional().describe('send a pending approval again after this long (5s to 30d)'),
  escalate_to: text(63).optional().describe('also send the reminder to this other destination'),
});

const IdParam = z.strictObject({ id: text(63).describe('the destination id') });
const RotateBody = z.strictObject({
  secret: z
    .string()
    .max(4096)
    .optional()
    .describe('chat, collab, email: the new bot token, client secret or SMTP password; write-only'),
});

/** `svc notify add`'s flag names as this route's fields, so an error names the field the page shows. */
const FIELD: Record<string, string> = {
  id: 'destination_id',
  'secret-file': 'secret',
  'to-approvers': 'to_approvers',
  'token-url': 'token_url',
  'client-id': 'client_id',
  'smtp-user': 'smtp_user',
  'console-url': 'console_url',
  'remind-after': 'remind_after',
  'escalate-to': 'escalate_to',
};

function renamed(err: unknown): never {
  if (err instanceof SvcError && err.field !== undefined) {
    const flag = err.field.replace(/\[\d+\]$/, '');
    const field = FIELD[flag];
    if (field !== undefined) {
      throw new SvcError(err.kind, err.reason.replace(new RegExp(`^${flag}`), field), {
        code: err.code,
        field: err.field.replace(flag, field),
        ...(err.remedy !== undefined ? { remedy: err.remedy } : {}),
      });
    }
  }
  throw err;
}

function dataDirOf(deps: ConsoleDeps): DataDir {
  if (deps.dataDir === undefined) {
    throw new SvcError('unavailable', 'this console was started without a data dir for the secret store', {
      remedy: 'start it with svc console start',
    });
  }
  return deps.dataDir;
}

const admin = { 403: { description: 'not an administrator', schema: ErrorBodySchema } };
const missing = { 404: { description: 'no such destination in the tenant', schema: ErrorBodySchema } };

/**
 * Adding, removing and testing a notification destination, and replacing its secret, from the
 * Notifications page: an administrator's (semantics.md: destinations are configured by an
 * administrator), behind the session's CSRF token, through the functions `svc notify add`,
 * `remove`, `test` and `rotate` call, so a URL meets the same checks and a secret is sealed
 * the same way. A secret sent here is never sent back; a webhook's signing secret, made by
 * svc, is shown once in the answer.
 */
export function notificationDestinationRoutes(deps: ConsoleDeps): AnyRoute[] {
  return [
    defineRoute({
      method: 'POST',
      url: '/api/notifications/destinations',
      summary:
        'add a notification destination, as svc notify add; a webhook’s signing secret is in the answer once (administrator; CSRF token)',
      tag: 'Console notifications',
      auth: 'token',
      body: AddBody,
      responses: {
        200: {
          description:
            'the destination (never a given secret) and a webhook’s new signing secret, shown once',
          schema: Destination.extend({ secret: z.string().nullable() }),
        },
        400: { description: 'a field that is not what it should be, named', schema: ErrorBodySchema },
        ...admin,
        409: { description: 'a destination of that id exists', schema: ErrorBodySchema },
      },
      beforeBody: (caller) => requireHuman(caller, 'administrator'),
      handler: async ({ caller, body }) => {
        const dir = dataDirOf(deps);
        const remind =
          body.remind_after === undefined
            ? undefined
            : parseDuration('remind_after', body.remind_after, {
                minMs: 5_000,
                maxMs: 30 * 24 * 60 * MINUTE,
              });
        const added = await addDestination(dir, deps.store, {
          tenantId: caller.tenantId,
          id: body.destination_id,
          kind: body.kind,
          url: body.url,
          events: body.events,
          options: {
            channel: body.channel,
            toApprovers: body.to_approvers,
            conversation: body.conversation,
            tokenUrl: body.token_url,
            clientId: body.client_id,
            scope: body.scope,
            from: body.from,
            to: body.to,
            smtpUser: body.smtp_user,
            consoleUrl: body.console_url,
          },
          secret: body.secret,
          remindAfterSeconds: remind === undefined ? undefined : Math.round(remind / 1000),
          escalateTo: body.escalate_to,
          now: deps.clock(),
        }).catch(renamed);
        const d = await deps.store.notify.destination(caller.tenantId, added.destination_id);
        if (d === undefined) throw new SvcError('conflict', 'the destination was removed while it was added');
        return { ...consoleDestination(d), secret: added.secret };
      },
    }),
    defineRoute({
      method: 'POST',
      url: '/api/notifications/destinations/:id/remove',
      summary:
        'remove a destination and its secret; its undelivered events end as disabled, as svc notify remove (administrator; CSRF token)',
      tag: 'Console notifications',
      auth: 'token',
      params: IdParam,
      body: z.strictObject({}),
      responses: {
        200: {
          description: 'removed',
          schema: z.object({ tenant_id: z.string(), destination_id: z.string(), removed: z.literal(true) }),
        },
        ...admin,
        ...missing,
      },
      beforeBody: (caller) => requireHuman(caller, 'administrator'),
      handler: async ({ caller, params }) => {
        return removeDestination(deps.store, { tenantId: caller.tenantId, id: params.id }).catch(renamed);
      },
    }),
    defineRoute({
      method: 'POST',
      url: '/api/notifications/destinations/:id/rotate',
      summary:
        "replace a destination's secret, as svc notify rotate: a webhook's new signing secret is in the answer once and the old one still signs for 24 hours (administrator; CSRF token)",
      tag: 'Console notifications',
      auth: 'token',
      params: IdParam,
      body: RotateBody,
      responses: {
        200: {
          description: 'the new secret of a webhook, shown once (null for the other kinds)',
          schema: z.object({
            tenant_id: z.string(),
            destination_id: z.string(),
            kind: z.string(),
            secret: z.string().nullable(),
            previous_valid_until: z.string().nullable(),
          }),
        },
        400: {
          description: 'a secret where none is taken, or none where one is needed',
          schema: ErrorBodySchema,
        },
        ...admin,
        ...missing,
      },
      beforeBody: (caller) => requireHuman(caller, 'administrator'),
      handler: async ({ caller, params, body }) => {
        return rotateDestinationSecret(dataDirOf(deps), deps.store, {
          tenantId: caller.tenantId,
          id: params.id,
          secret: body.secret,
          now: deps.clock(),
        }).catch(renamed);
      },
    }),
    defineRoute({
      method: 'POST',
      url: '/api/notifications/destinations/:id/test',
      summary:
        "send one test notification to a destination now, from the console (not queued, not retried), under the daemon's outbound rules, as svc notify test (administrator; CSRF token)",
      tag: 'Console notifications',
      auth: 'token',
      params: IdParam,
      body: z.strictObject({}),
      responses: {
        200: {
          description: 'what the receiver answered (a short code, never its body)',
          schema: z.object({
            tenant_id: z.string(),
            destination_id: z.string(),
            event_id: z.string(),
            event_type: z.string(),
            outcome: z.enum(['delivered', 'gone', 'retry', 'refused']),
            status: z.number().nullable(),
            error: z.string().nullable(),
          }),
        },
        400: { description: 'a destination that cannot be tested', schema: ErrorBodySchema },
        ...admin,
        ...missing,
      },
      beforeBody: (caller) => requireHuman(caller, 'administrator'),
      handler: async ({ caller, params }) => {
        return testDestination(dataDirOf(deps), deps.store, {
          tenantId: caller.tenantId,
          destinationId: params.id,
          policy: deps.notifyOutbound ?? DEFAULT_OUTBOUND_POLICY,
          now: deps.clock(),
        });
      },
    }),
  ];
}
