import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  chatForm,
  chatHeaders,
  collabActivity,
  collabToken,
  OpenIdServer,
  signingKey,
  type SigningKey,
} from '../helpers/channels.js';
import { runJson, runSvc, startDaemonProcess, type DaemonProcess } from '../helpers/cli.js';
import { call } from '../helpers/https.js';
import { tmpDir } from '../helpers/tmp.js';
import { provisionRefunds } from '../helpers/refund-tenant.js';

const SECRET = 'e2e-chat-signing-secret-5f1c2a';
const APP = 'e2e-bot-app-id';
const ISS = 'https://api.collab.example.test';

/**
 * Approval channels over the built binary and real TLS: channels and approvers configured
 * with the CLI, an irreversible action deferred (202), decided by a signed chat callback
 * or a collaboration-suite activity with a JWT from a real OpenID server on loopback, then
 * resumed.
 */
describe('approval channels end to end (built binary, TLS)', () => {
  const tmp = tmpDir('svc-e2e-chan-');
  const env = { SVC_HOME: join(tmp.path, 'home') };
  const idp = new OpenIdServer();
  let key: SigningKey;
  let ca: Buffer;
  let daemon: DaemonProcess;
  let bot: string;
  const svc = (args: string[]) => runJson(args, env);
  const t = ['--tenant', 'acme'];
  const pay = (step: string) => ({
    tenant_id: 'acme',
    actor_id: 'bot',
    capability: 'payments.send',
    action: 'write',
    task_id: 't1',
    effect_key_step: step,
    amount_usd: 40,
  });
  const act = (route: string, step: string) =>
    call(`${daemon.url}${route}`, {
      ca,
      method: 'POST',
      headers: { authorization: `Bearer ${bot}` },
      body: pay(step),
    });
  const defer = async (step: string) => {
    const r = await act('/v1/action', step);
    expect(r.status).toBe(202);
    return (r.body.approval as { approval_id: string }).approval_id;
  };
  const chat = (approvalId: string, decision: 'approve' | 'deny', channel = 'ops-chat') => {
    const body = chatForm('U024BOB', approvalId, decision);
    const ts = Math.floor(Date.now() / 1000);
    return call(`${daemon.url}/approvals/${channel}/callback`, {
      ca,
      method: 'POST',
      headers: chatHeaders(SECRET, ts, body),
      rawBody: body,
    });
  };

  beforeAll(async () => {
    key = await signingKey('collab-key-1');
    await idp.start();
    idp.keys = [key];
    const init = await runJson<{ ca_cert: string }>(['init', '--tenant', 'acme', '--admin', 'alice'], env);
    ca = readFileSync(init.ca_cert);
    await svc([
      'actor',
      'add',
      ...t,
      '--id',
      'bob',
      '--kind',
      'human',
      '--role',
      'approver',
      '--chat-user-id',
      'U024BOB',
      '--collab-user-id',
      '7d3c9a1e-bob',
    ]);
    bot = await provisionRefunds(env, {
      tenant: 'acme',
      sponsor: 'alice',
      dir: tmp.path,
      capability: 'payments.send',
    });
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
    daemon = await startDaemonProcess([], { ...env, E2E_CHAT_SECRET: SECRET });
  });
  afterAll(async () => {
    await daemon?.stop();
    await idp.stop();
    tmp.cleanup();
  });

  it('the CLI configures channels and approvers by exact ids, and refuses what would not work', async () => {
    const listed = await runJson<{ items: { channel_id: string; kind: string; callback_path: string }[] }>(
      ['channel', 'list', '--tenant', 'acme'],
      env,
    );
    expect(listed.items.map((c) => `${c.channel_id}:${c.kind}:${c.callback_path}`)).toEqual([
      'ops-chat:chat:/approvals/ops-chat/callback',
      'ops-collab:collab:/approvals/ops-collab/callback',
    ]);
    const actors = await runJson<{ items: { actor_id: string; chat_user_id: string | null }[] }>(
      ['actor', 'list', ...t],
      env,
    );
    expect(actors.items.find((a) => a.actor_id === 'bob')?.chat_user_id).toBe('U024BOB');

    const refused = async (args: string[]) => (await runSvc(['channel', 'add', ...args, '--json'], env)).code;
    expect(await refused(['x1', ...t, '--kind', 'chat', '--signing-secret-ref', 'plaintext-secret'])).toBe(2);
    expect(await refused(['x2', ...t, '--kind', 'chat'])).toBe(2);
    expect(
      await refused([
        'x3',
        ...t,
        '--kind',
        'collab',
        '--openid-metadata',
        'http://idp.example.test/meta',
        '--app-id',
        APP,
        '--issuer',
        ISS,
      ]),
    ).toBe(2);
    expect(
      await refused(['x4', ...t, '--kind', 'collab', '--openid-metadata', idp.metadataUrl, '--issuer', ISS]),
    ).toBe(2);
    expect(
      await refused(['x5', ...t, '--kind', 'chat', '--signing-secret-ref', 'env:X', '--app-id', APP]),
    ).toBe(2);
    expect(await refused(['x6', '--tenant', 'nope', '--kind', 'chat', '--signing-secret-ref', 'env:X'])).toBe(
      3,
    );
    expect(await refused(['ops-chat', ...t, '--kind', 'chat', '--signing-secret-ref', 'env:X'])).toBe(4);
    const agentId = await runSvc(
      [
        'actor',
        'add',
        ...t,
        '--id',
        'bot9',
        '--kind',
        'agent',
        '--manager',
        'alice',
        '--chat-user-id',
        'U9',
        '--json',
      ],
      env,
    );
    expect(agentId.code).toBe(2);
    const taken = await runSvc(
      ['actor', 'add', ...t, '--id', 'bob2', '--kind', 'human', '--chat-user-id', 'U024BOB', '--json'],
      env,
    );
    expect(taken.code).toBe(4);
  });

  it('deferred (202), approved through the chat callback, resumed, allowed', async () => {
    const id = await defer('chat-1');
    const r = await chat(id, 'approve');
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({ replace_original: true });
    expect(r.body.text).toMatch(/^Approved by bob/);
    const resumed = await act('/v1/action/resume', 'chat-1');
    expect(resumed.status).toBe(200);
    expect(resumed.body).toMatchObject({
      decision: 'allowed',
      approval: { approval_id: id, status: 'consumed' },
    });
  });

  it('deferred (202), approved through the collaboration callback, resumed, allowed', async () => {
    const id = await defer('collab-1');
    const now = Math.floor(Date.now() / 1000);
    const token = await collabToken(key, { aud: APP, iss: ISS, iat: now, exp: now + 300 });
    const r = await call(`${daemon.url}/approvals/ops-collab/callback`, {
      ca,
      method: 'POST',
      headers: { authorization: `Bearer ${token}` },
      body: collabActivity('7d3c9a1e-bob', id, 'approve'),
    });
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({
      type: 'message',
      value: { approval_id: id, status: 'approved', decided_by: 'bob' },
    });
    const resumed = await act('/v1/action/resume', 'collab-1');
    expect(resumed.status).toBe(200);
    expect(resumed.body.decision).toBe('allowed');

    const wrongAudience = await collabToken(key, { aud: 'another-app', iss: ISS, iat: now, exp: now + 300 });
    const refused = await call(`${daemon.url}/approvals/ops-collab/callback`, {
      ca,
      method: 'POST',
      headers: { authorization: `Bearer ${wrongAudience}` },
      body: collabActivity('7d3c9a1e-bob', await defer('collab-2'), 'approve'),
    });
    expect(refused.status).toBe(401);
  });

  it('a denial through chat ends in a refusal; a replay is refused; a removed channel is 404', async () => {
    const id = await defer('deny-1');
    const body = chatForm('U024BOB', id, 'deny');
    const headers = chatHeaders(SECRET, Math.floor(Date.now() / 1000), body);
    const url = `${daemon.url}/approvals/ops-chat/callback`;
    expect((await call(url, { ca, method: 'POST', headers, rawBody: body })).status).toBe(200);
    expect((await call(url, { ca, method: 'POST', headers, rawBody: body })).status).toBe(401);
    const refused = await act('/v1/action/resume', 'deny-1');
    expect(refused.status).toBe(403);
    expect(refused.body).toMatchObject({ decision: 'refused', code: 'approval_denied' });

    await svc(['channel', 'remove', 'ops-chat']);
    expect((await chat(await defer('gone-1'), 'approve')).status).toBe(404);
    expect((await runSvc(['channel', 'remove', 'ops-chat', '--json'], env)).code).toBe(3);
  });
});
