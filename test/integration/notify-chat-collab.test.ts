import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { parseChatPayload } from '../../src/channels/chat.js';
import { parseActivity } from '../../src/channels/collab.js';
import type { EventType, NotifyEvent } from '../../src/core/notify/event.js';
import { newEvent } from '../../src/core/notify/outbox.js';
import { approvalData, approvalDecidedData, approvalReminderData } from '../../src/core/notify/payloads.js';
import { CredentialResolver } from '../../src/integration/credentials.js';
import { SecretBox } from '../../src/integration/secret-box.js';
import { chatSender } from '../../src/notify/chat-sender.js';
import { collabSender } from '../../src/notify/collab-sender.js';
import type { DestinationSender, SendContext } from '../../src/notify/delivery-loop.js';
import { destinationSecrets } from '../../src/notify/destination-senders.js';
import { DEFAULT_OUTBOUND_POLICY } from '../../src/notify/outbound-policy.js';
import { addActor } from '../../src/provisioning/actor.js';
import { setSecret } from '../../src/provisioning/secret.js';
import type { NotifyDestination } from '../../src/store/notify-ports.js';
import { sqliteOutbox } from '../../src/store/sqlite/outbox.js';
import { fixture, type Fixture } from '../helpers/fixture.js';
import { capabilityRecord } from '../helpers/registry-records.js';
import { ChatApiServer, CollabServer } from '../helpers/vendor-apis.js';

/**
 * The chat (Slack Web API shape) and collab (Bot Framework shape) senders against real HTTP
 * servers on loopback that speak those APIs, with a real SQLite store for the messages they
 * remember and the secret store for the bot token and client secret. Every request is
 * recorded and checked: method, path, bearer, body.
 */

const BOT_TOKEN = 'xoxb-test-bot-token-7f3a9c';
const CLIENT_SECRET = 'collab-client-secret-2b8e41';
const APR = 'apr_01TESTAPPROVAL';
const INTENT = 'refund order 1042 <!channel> *urgent* [click](https://evil.example)';

let f: Fixture;
let chatApi: ChatApiServer;
let collab: CollabServer;
const policy = { ...DEFAULT_OUTBOUND_POLICY, allowLoopbackHttp: true, timeoutMs: 1500 };

beforeEach(async () => {
  f = await fixture();
  chatApi = await new ChatApiServer(BOT_TOKEN).start();
  collab = await new CollabServer('bot-app-id', CLIENT_SECRET).start();
});

afterEach(async () => {
  await chatApi.stop();
  await collab.stop();
  await f.close();
});

const facts = {
  id: APR,
  intentId: 'int_1',
  taskId: 't1',
  step: 'r-1042',
  capability: 'refunds.issue',
  action: 'write',
  requesterId: 'bot',
  amountMicros: 40_000_000n,
  requestDigest: 'sha256:4f1c0d',
  intent: INTENT,
  expiresAt: '2026-06-01T13:00:00.000Z',
  createdAt: '2026-06-01T12:00:00.000Z',
};

function event(type: EventType, data: Record<string, unknown>): NotifyEvent {
  return newEvent('acme', type, f.now.value.toISOString(), data);
}
const requested = () => event('approval.requested', approvalData(facts));
const decided = (status: 'approved' | 'denied' = 'approved') =>
  event(
    'approval.decided',
    approvalDecidedData(facts, {
      status,
      decidedBy: 'bob',
      decidedAt: '2026-06-01T12:05:00.000Z',
      channel: 'chat',
      receiptId: 'rcp_9',
    }),
  );

async function destination(
  id: string,
  kind: 'chat' | 'collab',
  url: string,
  settings: Record<string, unknown>,
  secret: string,
): Promise<NotifyDestination> {
  await setSecret(f.dir, f.store, {
    tenantId: 'acme',
    name: `notify.${id}`,
    value: secret,
    now: f.now.value,
  });
  const d: NotifyDestination = {
    tenantId: 'acme',
    id,
    kind,
    url,
    events: ['approval.requested'],
    secretName: `notify.${id}`,
    enabled: true,
    disabledReason: null,
    settings,
    remindAfterSeconds: null,
    escalateTo: null,
    createdAt: f.now.value.toISOString(),
  };
  await f.store.notify.addDestination(d);
  return d;
}

const chatDest = (settings: Record<string, unknown> = { channel: 'C0APPROVALS', toApprovers: false }) =>
  destination('ops-chat', 'chat', chatApi.base, settings, BOT_TOKEN);
const collabDest = () =>
  destination(
    'ops-collab',
    'collab',
    `${collab.url}/`,
    {
      conversationId: '19:ops@thread.v2',
      tokenUrl: collab.tokenUrl,
      clientId: 'bot-app-id',
      scope: 'bot/.default',
    },
    CLIENT_SECRET,
  );

function send(sender: DestinationSender, d: NotifyDestination, e: NotifyEvent) {
  const open = destinationSecrets(
    new CredentialResolver(f.store.secrets, () => SecretBox.open(f.dir.root, { create: false })),
  );
  const ctx: SendContext = {
    destination: d,
    event: e,
    policy,
    now: f.now.value,
    secrets: () => open(d),
    repo: f.store.notify,
  };
  return sender(ctx);
}

/** The event enqueued for `d` in the outbox (its delivery pending), as the use cases write it. */
function enqueue(e: NotifyEvent, d: NotifyDestination): void {
  f.store.db.transaction(() => sqliteOutbox(f.store.db).writeEvent(e, [d.id]))();
}

type Block = { type: string; block_id?: string; elements?: { action_id: string; value: string }[] };
const blocksOf = (body: Record<string, unknown>) => body.blocks as Block[];
const buttonsOf = (body: Record<string, unknown>) => blocksOf(body).find((b) => b.type === 'actions');

describe('chat sender (Slack Web API shape)', () => {
  it('posts the approval with its facts and Approve / Deny buttons whose press the chat callback accepts', async () => {
    const d = await chatDest();
    const e = requested();
    expect(await send(chatSender(), d, e)).toEqual({ kind: 'delivered', status: 200 });
    expect(chatApi.got).toHaveLength(1);
    const r = chatApi.got[0]!;
    expect([r.method, r.path, r.authorization]).toEqual([
      'POST',
      '/api/chat.postMessage',
      `Bearer ${BOT_TOKEN}`,
    ]);
    expect(r.contentType).toBe('application/json; charset=utf-8');
    expect(r.body.channel).toBe('C0APPROVALS');
    const shown = JSON.stringify(r.body.blocks);
    for (const fact of [
      'refunds.issue',
      'write',
      '40',
      't1',
      'bot',
      'sha256:4f1c0d',
      '2026-06-01T13:00:00.000Z',
      APR,
    ])
      expect(shown).toContain(fact);
    // the typed intent is shown as plain text, never as markup: no mention, no link, no bold
    const texts = blocksOf(r.body).flatMap((b) => {
      const x = b as { text?: { type: string }; fields?: { type: string }[] };
      return [...(x.text ? [x.text] : []), ...(x.fields ?? [])];
    });
    expect(texts.every((t) => t.type === 'plain_text')).toBe(true);
    expect(shown).toContain('<!channel>');
    expect(String(r.body.text)).not.toMatch(/[<>]/);
    // the press, as the platform sends it from this message, is what the callback accepts
    for (const button of buttonsOf(r.body)!.elements!) {
      const payload = {
        type: 'block_actions',
        user: { id: 'U0BOB' },
        actions: [{ type: 'button', block_id: buttonsOf(r.body)!.block_id, ...button, action_ts: '1.2' }],
      };
      expect(
        parseChatPayload(Buffer.from(new URLSearchParams({ payload: JSON.stringify(payload) }).toString())),
      ).toEqual({
        userId: 'U0BOB',
        approvalId: APR,
        decision: button.action_id,
      });
    }
    expect(await f.store.notify.messages('acme', 'ops-chat', APR)).toEqual([
      expect.objectContaining({ target: 'C0APPROVALS', messageId: '1700000000.000001', eventId: e.id }),
    ]);
  });

  it('turns every message posted for the approval into the outcome, with no buttons left', async () => {
    const d = await chatDest();
    await send(chatSender(), d, requested());
    const reminder = event(
      'approval.reminder',
      approvalReminderData(facts, { pendingSeconds: 1860, escalated: false }),
    );
    expect((await send(chatSender(), d, reminder)).kind).toBe('delivered');
    const remind = chatApi.posts()[1]!;
    expect(String(remind.body.text)).toContain('Reminder');
    expect(String(remind.body.text)).toContain('31 min');
    expect(buttonsOf(remind.body)).toBeDefined();

    expect(await send(chatSender(), d, decided())).toEqual({ kind: 'delivered', status: 200 });
    const updates = chatApi.updates();
    expect(updates.map((u) => [u.authorization, u.body.channel, u.body.ts])).toEqual([
      [`Bearer ${BOT_TOKEN}`, 'C0APPROVALS', '1700000000.000001'],
      [`Bearer ${BOT_TOKEN}`, 'C0APPROVALS', '1700000000.000002'],
    ]);
    for (const u of updates) {
      expect(buttonsOf(u.body)).toBeUndefined();
      expect(String(u.body.text)).toContain('Approved by bob');
    }
    expect(chatApi.posts()).toHaveLength(2);
  });

  it('a message someone deleted is left alone: its update is not retried forever', async () => {
    const d = await chatDest();
    await send(chatSender(), d, requested());
    chatApi.script.push({ status: 200, json: { ok: false, error: 'message_not_found' } });
    expect((await send(chatSender(), d, decided())).kind).toBe('delivered');
    expect(chatApi.updates()).toHaveLength(1);

    const c = await collabDest();
    const sender = collabSender();
    await send(sender, c, requested());
    collab.script.push({ status: 404, json: {} });
    expect((await send(sender, c, decided())).kind).toBe('delivered');
    expect(collab.activityRequests().map((r) => r.method)).toEqual(['POST', 'PUT']);
  });

  it('waits for the message while its post is pending (message_not_posted_yet); posts the outcome when none will come', async () => {
    const d = await chatDest();
    const req = requested();
    enqueue(req, d);
    expect(await send(chatSender(), d, decided())).toEqual({
      kind: 'retry',
      status: null,
      error: 'message_not_posted_yet',
    });
    expect(chatApi.got).toHaveLength(0);

    const other = { ...facts, id: 'apr_NEVERPOSTED' };
    const late = event('approval.expired', { ...approvalData(other), status: 'expired' });
    expect(await send(chatSender(), d, late)).toEqual({ kind: 'delivered', status: 200 });
    expect(chatApi.posts()).toHaveLength(1);
    expect(String(chatApi.posts()[0]!.body.text)).toContain('Expired undecided');
    expect(buttonsOf(chatApi.posts()[0]!.body)).toBeUndefined();
    // a retry of that outcome does not post it twice
    expect((await send(chatSender(), d, late)).kind).toBe('delivered');
    expect(chatApi.posts()).toHaveLength(1);
  });

  it('posts to each approver directly, never twice on a retry, and updates each after the decision', async () => {
    await addActor(
      f.store,
      { tenantId: 'acme', id: 'bob', kind: 'human', roles: ['approver'], chatUserId: 'U0BOB' },
      f.now.value,
    );
    await addActor(
      f.store,
      { tenantId: 'acme', id: 'carol', kind: 'human', roles: [], chatUserId: 'U0CAROL' },
      f.now.value,
    );
    await addActor(
      f.store,
      { tenantId: 'acme', id: 'dave', kind: 'human', roles: ['manager'], chatUserId: 'U0DAVE' },
      f.now.value,
    );
    await f.store.capabilities.put(
      capabilityRecord('acme', 'refunds.issue', f.now.value.toISOString(), {
        approvers: ['carol'],
        actions: ['write'],
      }),
    );
    const d = await chatDest({ channel: null, toApprovers: true });
    const e = requested();
    // alice (the fixture's administrator and approver) has no chat user id: not reached
    chatApi.script.push({ status: 200, json: { ok: true, channel: 'D0BOB', ts: '1.000001' } });
    chatApi.script.push({ status: 200, json: { ok: false, error: 'channel_not_found' } });
    expect(await send(chatSender(), d, e)).toEqual({
      kind: 'retry',
      status: 200,
      error: 'chat_channel_not_found',
    });
    expect(chatApi.posts().map((p) => p.body.channel)).toEqual(['U0BOB', 'U0CAROL']);
    expect((await send(chatSender(), d, e)).kind).toBe('delivered');
    expect(chatApi.posts().map((p) => p.body.channel)).toEqual(['U0BOB', 'U0CAROL', 'U0CAROL']);
    expect((await send(chatSender(), d, e)).kind).toBe('delivered');
    expect(chatApi.posts()).toHaveLength(3);

    expect((await send(chatSender(), d, decided('denied'))).kind).toBe('delivered');
    expect(
      chatApi
        .updates()
        .map((u) => [u.body.channel, u.body.ts, String(u.body.text).startsWith('Denied by bob')]),
    ).toEqual([
      ['D0BOB', '1.000001', true],
      ['D0CAROL', '1700000000.000001', true],
    ]);
  });

  it('one attempt stays within one time-out: once a hung post spent it, no other approver is tried in that attempt', async () => {
    for (const [id, chat] of [
      ['bob', 'U0BOB'],
      ['carol', 'U0CAROL'],
      ['erin', 'U0ERIN'],
    ] as const)
      await addActor(
        f.store,
        { tenantId: 'acme', id, kind: 'human', roles: ['approver'], chatUserId: chat },
        f.now.value,
      );
    const d = await chatDest({ channel: null, toApprovers: true });
    const e = requested();
    chatApi.script.push('hang');
    expect(await send(chatSender(), d, e)).toEqual({ kind: 'retry', status: null, error: 'timeout' });
    expect(chatApi.posts().map((p) => p.body.channel)).toEqual(['U0BOB']);
    // the next attempt reaches every approver not yet posted to
    expect((await send(chatSender(), d, e)).kind).toBe('delivered');
    expect(chatApi.posts().map((p) => p.body.channel)).toEqual(['U0BOB', 'U0BOB', 'U0CAROL', 'U0ERIN']);
  });

  it('an answer that is not ok, a 5xx, a 429 or a time-out is a coded retry that never quotes the platform or the token', async () => {
    const d = await chatDest();
    const cases: [unknown, Record<string, unknown>][] = [
      [
        { status: 200, json: { ok: false, error: 'not_in_channel' } },
        { status: 200, error: 'chat_not_in_channel' },
      ],
      [
        { status: 200, json: { ok: false, error: `weird <b>${BOT_TOKEN}</b>` } },
        { status: 200, error: 'chat_error' },
      ],
      [
        { status: 200, text: `<html>${BOT_TOKEN}` },
        { status: 200, error: 'chat_bad_answer' },
      ],
      [
        { status: 503, json: { ok: false } },
        { status: 503, error: 'status_503' },
      ],
      [
        { status: 429, json: { ok: false, error: 'ratelimited' } },
        { status: 429, error: 'status_429' },
      ],
      ['hang', { status: null, error: 'timeout' }],
      // an answer past the policy's size bound is not read, so not trusted
      [
        {
          status: 200,
          text: JSON.stringify({ ok: true, channel: 'C0APPROVALS', ts: '1.1', pad: 'x'.repeat(70_000) }),
        },
        { status: 200, error: 'chat_bad_answer' },
      ],
    ];
    for (const [answer, expected] of cases) {
      chatApi.script.push(answer as never);
      const out = await send(chatSender(), d, requested());
      expect(out).toEqual({ kind: 'retry', ...expected });
      expect(JSON.stringify(out)).not.toContain(BOT_TOKEN);
    }
    expect(await f.store.notify.messages('acme', 'ops-chat', APR)).toEqual([]);
  });

  it("a wrong bot token is the platform's invalid_auth; another event is one plain line; svc notify test says so", async () => {
    const d = await chatDest();
    await setSecret(f.dir, f.store, {
      tenantId: 'acme',
      name: 'notify.ops-chat',
      value: 'xoxb-wrong',
      now: f.now.value,
    });
    expect(await send(chatSender(), d, requested())).toEqual({
      kind: 'retry',
      status: 200,
      error: 'chat_invalid_auth',
    });
    await setSecret(f.dir, f.store, {
      tenantId: 'acme',
      name: 'notify.ops-chat',
      value: BOT_TOKEN,
      now: f.now.value,
    });
    const budget = event('budget.threshold', { task_id: 't1', threshold_percent: 80, budget_usd: 100 });
    expect((await send(chatSender(), d, budget)).kind).toBe('delivered');
    const test = newEvent('acme', 'approval.requested', f.now.value.toISOString(), {
      test: true,
      destination_id: 'ops-chat',
    });
    expect((await send(chatSender(), d, test)).kind).toBe('delivered');
    const [, one, two] = chatApi.posts();
    expect(one!.body.text).toBe(
      'svc event budget.threshold (tenant acme): task_id: t1; threshold_percent: 80; budget_usd: 100',
    );
    expect(two!.body.text).toBe('svc test notification (tenant acme, destination ops-chat)');
    expect(buttonsOf(one!.body)).toBeUndefined();
    expect(buttonsOf(two!.body)).toBeUndefined();
    expect(await f.store.notify.messages('acme', 'ops-chat', APR)).toEqual([]);
  });
});

describe('collab sender (Bot Framework shape)', () => {
  const conversationPath = `/v3/conversations/${encodeURIComponent('19:ops@thread.v2')}/activities`;

  it('asks a client-credentials token, posts an Adaptive Card whose submit data the collab callback accepts, and reuses the token', async () => {
    const d = await collabDest();
    expect(await send(collabSender(), d, requested())).toEqual({ kind: 'delivered', status: 201 });
    const [tok, post] = collab.got;
    expect([tok!.method, tok!.path, tok!.contentType]).toEqual([
      'POST',
      '/oauth/token',
      'application/x-www-form-urlencoded',
    ]);
    expect(tok!.body).toEqual({
      grant_type: 'client_credentials',
      client_id: 'bot-app-id',
      client_secret: CLIENT_SECRET,
      scope: 'bot/.default',
    });
    expect([post!.method, post!.path, post!.authorization]).toEqual([
      'POST',
      conversationPath,
      'Bearer bot-token-1',
    ]);
    const attachment = (
      post!.body.attachments as { contentType: string; content: Record<string, unknown> }[]
    )[0]!;
    expect(post!.body.type).toBe('message');
    expect(attachment.contentType).toBe('application/vnd.microsoft.card.adaptive');
    const card = JSON.stringify(attachment.content);
    for (const fact of [
      'refunds.issue',
      'write',
      't1',
      'bot',
      'sha256:4f1c0d',
      '2026-06-01T13:00:00.000Z',
      INTENT,
    ])
      expect(card).toContain(JSON.stringify(fact).slice(1, -1));
    // values are TextRuns, which hosts never read as markdown
    expect(card).not.toContain('"TextBlock"');
    expect(card).not.toContain('"FactSet"');
    const actions = attachment.content.actions as { type: string; data: Record<string, unknown> }[];
    expect(actions.map((a) => a.type)).toEqual(['Action.Submit', 'Action.Submit']);
    for (const a of actions) {
      const activity = {
        type: 'invoke',
        id: 'act-x',
        serviceUrl: collab.url,
        from: { id: '29:1', aadObjectId: 'aad-bob' },
        value: a.data,
      };
      expect(parseActivity(Buffer.from(JSON.stringify(activity)), {})).toMatchObject({
        userId: 'aad-bob',
        approvalId: APR,
        decision: a.data.decision,
      });
    }
    expect(await f.store.notify.messages('acme', 'ops-collab', APR)).toEqual([
      expect.objectContaining({ target: '19:ops@thread.v2', messageId: 'act-1' }),
    ]);
    // a second send within the token's life asks no new token
    const sender = collabSender();
    await send(sender, d, event('budget.threshold', { task_id: 't1' }));
    await send(sender, d, event('budget.threshold', { task_id: 't2' }));
    expect(collab.tokenRequests()).toHaveLength(2);
    expect(collab.activityRequests().map((r) => r.authorization)).toEqual([
      'Bearer bot-token-1',
      'Bearer bot-token-2',
      'Bearer bot-token-2',
    ]);
  });

  it('a cached token is asked again shortly before it expires', async () => {
    const d = await collabDest();
    const sender = collabSender();
    collab.expiresIn = 600;
    await send(sender, d, event('budget.threshold', { task_id: 't1' }));
    f.now.value = new Date(f.now.value.getTime() + 299_000);
    await send(sender, d, event('budget.threshold', { task_id: 't2' }));
    expect(collab.tokenRequests()).toHaveLength(1);
    // 600 s stated, dropped 300 s before: at 301 s a new one is asked
    f.now.value = new Date(f.now.value.getTime() + 2_000);
    await send(sender, d, event('budget.threshold', { task_id: 't3' }));
    expect(collab.tokenRequests()).toHaveLength(2);
    expect(collab.activityRequests().map((r) => r.authorization)).toEqual([
      'Bearer bot-token-1',
      'Bearer bot-token-1',
      'Bearer bot-token-2',
    ]);
  });

  it('a 401 from the connector drops the cached token and tries again with a new one', async () => {
    const d = await collabDest();
    const sender = collabSender();
    expect((await send(sender, d, requested())).kind).toBe('delivered');
    collab.revoked.add('bot-token-1');
    expect(await send(sender, d, decided())).toEqual({ kind: 'delivered', status: 200 });
    expect(collab.tokenRequests()).toHaveLength(2);
    const [, refused, put] = collab.activityRequests();
    expect([refused!.method, refused!.authorization]).toEqual(['PUT', 'Bearer bot-token-1']);
    expect([put!.method, put!.path, put!.authorization]).toEqual([
      'PUT',
      `${conversationPath}/act-1`,
      'Bearer bot-token-2',
    ]);
    expect(put!.body.id).toBe('act-1');
    const content = (put!.body.attachments as { content: Record<string, unknown> }[])[0]!.content;
    expect(content.actions).toBeUndefined();
    expect(JSON.stringify(content)).toContain('Approved by bob');
  });

  it('the token endpoint is under the outbound policy too: a private address is refused before any request', async () => {
    const d = await collabDest();
    const privateToken = { ...d, settings: { ...d.settings, tokenUrl: 'https://10.1.2.3/oauth/token' } };
    expect(await send(collabSender(), privateToken, requested())).toEqual({
      kind: 'refused',
      error: 'token_private_address',
    });
    expect(collab.got).toHaveLength(0);
  });

  it('token and connector failures are coded retries that never quote a secret, a token or an answer', async () => {
    const d = await collabDest();
    const cases: [unknown[], Record<string, unknown>][] = [
      [
        [{ status: 400, json: { error: 'invalid_scope', error_description: CLIENT_SECRET } }],
        { status: 400, error: 'token_status_400' },
      ],
      [[{ status: 200, json: { token_type: 'Bearer' } }], { status: 200, error: 'token_bad_answer' }],
      [['hang'], { status: null, error: 'token_timeout' }],
      [
        [
          { status: 200, json: { access_token: 'tok-a', expires_in: 3600 } },
          { status: 500, text: 'tok-a' },
        ],
        { status: 500, error: 'status_500' },
      ],
      [
        [
          { status: 200, json: { access_token: 'tok-b', expires_in: 3600 } },
          { status: 201, text: 'not json tok-b' },
        ],
        { status: 201, error: 'collab_bad_answer' },
      ],
      [
        [{ status: 200, json: { access_token: 'tok-c', expires_in: 3600 } }, 'hang'],
        { status: null, error: 'timeout' },
      ],
    ];
    for (const [answers, expected] of cases) {
      collab.script.push(...(answers as never[]));
      const out = await send(collabSender(), d, requested());
      expect(out).toEqual({ kind: 'retry', ...expected });
      expect(JSON.stringify(out)).not.toMatch(new RegExp(`${CLIENT_SECRET}|tok-`));
    }
    // twice 401 with a fresh token each time: the attempt ends as a retry, not a loop
    collab.script.push(
      { status: 200, json: { access_token: 'tok-d', expires_in: 3600 } },
      { status: 401, json: {} },
      { status: 200, json: { access_token: 'tok-e', expires_in: 3600 } },
      { status: 401, json: {} },
    );
    expect(await send(collabSender(), d, requested())).toEqual({
      kind: 'retry',
      status: 401,
      error: 'status_401',
    });
    expect(await f.store.notify.messages('acme', 'ops-collab', APR)).toEqual([]);
  });
});
