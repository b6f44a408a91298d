import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { chatHeaders, collabToken, OpenIdServer, signingKey, type SigningKey } from '../helpers/channels.js';
import { runJson, runSvc, startDaemonProcess, type DaemonProcess } from '../helpers/cli.js';
import { call } from '../helpers/https.js';
import { tmpDir } from '../helpers/tmp.js';
import { until } from '../helpers/until.js';
import { ChatApiServer, CollabServer, type VendorRequest } from '../helpers/vendor-apis.js';
import { provisionRefunds } from '../helpers/refund-tenant.js';
import { startConsoleProcess } from '../helpers/browser.js';

const SIGNING = 'e2e-chat-signing-secret-81d0';
const BOT_TOKEN = 'xoxb-e2e-bot-token-5c27';
const CLIENT_SECRET = 'e2e-collab-client-secret-93fa';
const APP = 'e2e-bot-app-id';
const ISS = 'https://api.collab.example.test';
const CONVERSATION = '19:ops@thread.v2';

type Block = { type: string; block_id?: string; elements?: { action_id: string; value: string }[] };
type Card = { actions?: { type: string; data: Record<string, unknown> }[] };

/**
 * Chat and collab destinations over the built binary: the daemon over TLS delivers to a
 * Slack-shaped Web API and a Bot Framework-shaped connector on loopback. A deferred refund
 * is posted with buttons; the press of a posted button, signed as the platform signs it,
 * approves through the existing callback; the message is then updated into the outcome and
 * the agent's resume is allowed. The same through the collab card, and through the CLI.
 */
describe('chat and collab destinations end to end (built binary, TLS, loopback vendors)', () => {
  const tmp = tmpDir('svc-e2e-notify-chat-');
  const env = { SVC_HOME: join(tmp.path, 'home') };
  const t = ['--tenant', 'acme'];
  const idp = new OpenIdServer();
  const chatApi = new ChatApiServer(BOT_TOKEN);
  const collab = new CollabServer(APP, CLIENT_SECRET);
  let key: SigningKey;
  let ca: Buffer;
  let daemon: DaemonProcess;
  let bot: string;
  let bob: string;
  const svc = (args: string[]) => runJson(args, env);
  const wait = (what: string, done: () => boolean) => until(what, () => (done() ? true : undefined));

  const act = (route: string, step: string) =>
    call(`${daemon.url}${route}`, {
      ca,
      method: 'POST',
      headers: { authorization: `Bearer ${bot}` },
      body: {
        tenant_id: 'acme',
        actor_id: 'bot',
        capability: 'refunds.issue',
        action: 'write',
        task_id: 't1',
        effect_key_step: step,
        amount_usd: 40,
        intent: `refund order ${step}`,
      },
    });
  const defer = async (step: string) => {
    const r = await act('/v1/action', step);
    expect(r.status).toBe(202);
    return (r.body.approval as { approval_id: string }).approval_id;
  };
  const buttonsOf = (r: VendorRequest) => (r.body.blocks as Block[]).find((b) => b.type === 'actions');
  const postedFor = (id: string) => chatApi.posts().filter((p) => buttonsOf(p)?.elements?.[0]?.value === id);
  const cardOf = (r: VendorRequest) =>
    (r.body.attachments as { content: Card }[] | undefined)?.[0]?.content ?? ({} as Card);
  const cardFor = (id: string) =>
    collab
      .activityRequests()
      .find((r) => r.method === 'POST' && cardOf(r).actions?.some((a) => a.data.approval_id === id));
  const resumeAllowed = async (step: string, id: string) => {
    const resumed = await act('/v1/action/resume', step);
    expect(resumed.status).toBe(200);
    expect(resumed.body).toMatchObject({
      decision: 'allowed',
      approval: { approval_id: id, status: 'consumed' },
    });
  };
  /** every chat message posted for the approval was updated, with no buttons left */
  const chatUpdated = async (id: string, verdict: RegExp) => {
    const posted = postedFor(id).map((p) => chatApi.answered.get(p)!);
    expect(posted).toHaveLength(3);
    const updatedOnes = () =>
      chatApi.updates().filter((u) => posted.some((a) => a.channel === u.body.channel && a.ts === u.body.ts));
    await wait(
      'every posted chat message updated',
      () => new Set(updatedOnes().map((u) => u.body.ts)).size === 3,
    );
    const updates = updatedOnes();
    for (const u of updates) {
      expect(u.authorization).toBe(`Bearer ${BOT_TOKEN}`);
      expect(buttonsOf(u)).toBeUndefined();
      expect(String(u.body.text)).toMatch(verdict);
    }
    expect(new Set(updates.map((u) => u.body.channel))).toEqual(
      new Set(['C0APPROVALS', 'D024BOB', 'D024CAROL']),
    );
  };

  beforeAll(async () => {
    key = await signingKey('collab-key-1');
    await Promise.all([idp.start(), chatApi.start(), collab.start()]);
    idp.keys = [key];
    const init = await runJson<{ ca_cert: string }>(['init', '--tenant', 'acme', '--admin', 'alice'], env);
    ca = readFileSync(init.ca_cert);
    const human = (id: string, chat: string, aad: string) =>
      svc([
        'actor',
        'add',
        ...t,
        '--id',
        id,
        '--kind',
        'human',
        '--role',
        'approver',
        '--chat-user-id',
        chat,
        '--collab-user-id',
        aad,
      ]);
    await human('bob', 'U024BOB', 'aad-bob');
    await human('carol', 'U024CAROL', 'aad-carol');
    bot = await provisionRefunds(env, { tenant: 'acme', sponsor: 'alice', dir: tmp.path });
    bob = (await runJson<{ token: string }>(['token', 'issue', ...t, '--actor', 'bob'], env)).token;
    // callbacks: how a press comes back
    await svc([
      'channel',
      'add',
      'ops-chat',
      ...t,
      '--kind',
      'chat',
      '--signing-secret-ref',
      'env:E2E_CHAT_SECRET',
    ]);
    await svc([
      'channel',
      'add',
      'ops-collab',
      ...t,
      '--kind',
      'collab',
      '--openid-metadata',
      idp.metadataUrl,
      '--app-id',
      APP,
      '--issuer',
      ISS,
    ]);
    // destinations: where messages go
    const botToken = join(tmp.path, 'bot-token');
    writeFileSync(botToken, `${BOT_TOKEN}\n`);
    const clientSecret = join(tmp.path, 'client-secret');
    writeFileSync(clientSecret, `${CLIENT_SECRET}\n`);
    const chatDest = [
      '--kind',
      'chat',
      '--url',
      chatApi.base,
      '--events',
      'approval.requested',
      '--secret-file',
      botToken,
    ];
    await svc(['notify', 'add', 'ops-room', ...t, ...chatDest, '--channel', 'C0APPROVALS']);
    await svc(['notify', 'add', 'ops-dm', ...t, ...chatDest, '--to-approvers']);
    await svc([
      'notify',
      'add',
      'ops-teams',
      ...t,
      '--kind',
      'collab',
      '--url',
      collab.url,
      '--events',
      'approval.requested',
      '--conversation',
      CONVERSATION,
      '--token-url',
      collab.tokenUrl,
      '--client-id',
      APP,
      '--scope',
      'bot/.default',
      '--secret-file',
      clientSecret,
    ]);
    daemon = await startDaemonProcess(
      ['--notify-allow-loopback-http', '--notify-timeout', '2s', '--notify-retry-speedup', '100000'],
      { ...env, E2E_CHAT_SECRET: SIGNING },
    );
  });
  afterAll(async () => {
    await daemon?.stop();
    await Promise.all([idp.stop(), chatApi.stop(), collab.stop()]);
    tmp.cleanup();
  });

  it('the posted button, pressed and signed as the platform does, approves; every message becomes the outcome; resume is allowed', async () => {
    const id = await defer('chat-1');
    await wait('the approval posted to the room and to each approver', () => postedFor(id).length === 3);
    const posts = postedFor(id);
    expect(posts.map((p) => p.body.channel).sort()).toEqual(['C0APPROVALS', 'U024BOB', 'U024CAROL']);
    for (const p of posts) {
      expect(p.authorization).toBe(`Bearer ${BOT_TOKEN}`);
      expect(JSON.stringify(p.body.blocks)).toContain('refund order chat-1');
    }
    const room = posts.find((p) => p.body.channel === 'C0APPROVALS')!;
    const actions = buttonsOf(room)!;
    const approve = actions.elements!.find((e) => e.action_id === 'approve')!;
    const payload = {
      type: 'block_actions',
      user: { id: 'U024BOB', username: 'bob' },
      team: { id: 'T0001' },
      actions: [
        {
          type: 'button',
          block_id: actions.block_id,
          action_id: approve.action_id,
          value: approve.value,
          action_ts: '1700000001.1',
        },
      ],
    };
    const body = new URLSearchParams({ payload: JSON.stringify(payload) }).toString();
    const r = await call(`${daemon.url}/approvals/ops-chat/callback`, {
      ca,
      method: 'POST',
      headers: chatHeaders(SIGNING, Math.floor(Date.now() / 1000), body),
      rawBody: body,
    });
    expect(r.status).toBe(200);
    expect(String(r.body.text)).toMatch(/^Approved by bob/);
    await chatUpdated(id, /^Approved by bob/);
    await resumeAllowed('chat-1', id);
    // no token or secret in what the deliveries record
    const listed = await runSvc(['notify', 'deliveries', ...t, '--json'], env);
    expect(listed.stdout).not.toMatch(new RegExp(`${BOT_TOKEN}|${CLIENT_SECRET}|bot-token-`));
  });

  it('the collab card submitted through the collab callback approves; the card and the chat messages become the outcome', async () => {
    const id = await defer('collab-1');
    await wait(
      'the card and the chat messages posted',
      () => cardFor(id) !== undefined && postedFor(id).length === 3,
    );
    const post = cardFor(id)!;
    expect(post.path).toBe(`/v3/conversations/${encodeURIComponent(CONVERSATION)}/activities`);
    expect(collab.tokenRequests()[0]!.body).toEqual({
      grant_type: 'client_credentials',
      client_id: APP,
      client_secret: CLIENT_SECRET,
      scope: 'bot/.default',
    });
    const approve = cardOf(post).actions!.find((a) => a.data.decision === 'approve')!;
    const now = Math.floor(Date.now() / 1000);
    const jwt = await collabToken(key, { aud: APP, iss: ISS, iat: now, exp: now + 300 });
    const r = await call(`${daemon.url}/approvals/ops-collab/callback`, {
      ca,
      method: 'POST',
      headers: { authorization: `Bearer ${jwt}` },
      body: {
        type: 'invoke',
        id: 'act-press',
        serviceUrl: collab.url,
        from: { id: '29:1-carol', aadObjectId: 'aad-carol' },
        value: approve.data,
      },
    });
    expect(r.status).toBe(200);
    const activityId = collab.activityRequests().indexOf(post);
    expect(activityId).toBeGreaterThanOrEqual(0);
    await wait('the card updated', () =>
      collab
        .activityRequests()
        .some((a) => a.method === 'PUT' && JSON.stringify(a.body).includes(`Approved by carol`)),
    );
    const put = collab
      .activityRequests()
      .find((a) => a.method === 'PUT' && JSON.stringify(a.body).includes(id))!;
    expect(put.path).toMatch(
      new RegExp(`^/v3/conversations/${encodeURIComponent(CONVERSATION)}/activities/act-\\d+$`),
    );
    expect(put.authorization).toMatch(/^Bearer bot-token-\d+$/);
    expect(cardOf(put).actions).toBeUndefined();
    await chatUpdated(id, /^Approved by carol/);
    await resumeAllowed('collab-1', id);
  });

  it('approved with svc approvals approve: the chat messages and the card still become the outcome', async () => {
    const id = await defer('cli-1');
    await wait(
      'the card and the chat messages posted',
      () => cardFor(id) !== undefined && postedFor(id).length === 3,
    );
    const approved = await runSvc(['approvals', 'approve', id, '--json'], {
      ...env,
      SVC_ENDPOINT: daemon.url,
      SVC_CA_CERT: join(env.SVC_HOME, 'tls/deployment-cert.pem'),
      SVC_TOKEN: bob,
    });
    expect(approved.code, approved.stderr).toBe(0);
    await chatUpdated(id, /^Approved by bob/);
    await wait('the card updated', () =>
      collab.activityRequests().some((a) => a.method === 'PUT' && JSON.stringify(a.body).includes(id)),
    );
    await resumeAllowed('cli-1', id);
  });
  it('approved in the operator console: the chat messages and the card still become the outcome', async () => {
    const id = await defer('console-1');
    await wait(
      'the card and the chat messages posted',
      () => cardFor(id) !== undefined && postedFor(id).length === 3,
    );
    const consoleApp = await startConsoleProcess([], env);
    try {
      const signIn = await call(`${consoleApp.url}/api/session`, {
        ca,
        method: 'POST',
        body: {},
        headers: { authorization: `Bearer ${bob}` },
      });
      expect(signIn.status).toBe(200);
      const cookie = String(signIn.headers['set-cookie']).split(';')[0]!;
      const decided = await call(`${consoleApp.url}/api/approvals/${id}/decision`, {
        ca,
        method: 'POST',
        body: { decision: 'approve' },
        headers: { cookie, 'x-csrf-token': String(signIn.body.csrf_token) },
      });
      expect(decided.status, JSON.stringify(decided.body)).toBe(200);
    } finally {
      await consoleApp.stop();
    }
    await chatUpdated(id, /^Approved by bob/);
    await wait('the card updated', () =>
      collab.activityRequests().some((a) => a.method === 'PUT' && JSON.stringify(a.body).includes(id)),
    );
    await resumeAllowed('console-1', id);
  });

  it('svc notify test posts one plain "svc test notification" message to a chat and a collab destination', async () => {
    for (const [id, count] of [
      ['ops-room', () => chatApi.posts().length],
      ['ops-teams', () => collab.activityRequests().length],
    ] as const) {
      const before = count();
      const r = await runJson<{ outcome: string; error: string | null }>(
        ['notify', 'test', id, ...t, '--notify-allow-loopback-http'],
        env,
      );
      expect(r).toMatchObject({ outcome: 'delivered', error: null });
      expect(count()).toBe(before + 1);
    }
    const chatTest = chatApi.posts().at(-1)!;
    expect([chatTest.body.channel, chatTest.body.text]).toEqual([
      'C0APPROVALS',
      'svc test notification (tenant acme, destination ops-room)',
    ]);
    expect(buttonsOf(chatTest)).toBeUndefined();
    const collabTest = collab.activityRequests().at(-1)!;
    expect([collabTest.method, collabTest.body.text, collabTest.body.attachments]).toEqual([
      'POST',
      'svc test notification (tenant acme, destination ops-teams)',
      undefined,
    ]);
  });
});
