import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { SignJWT, UnsecuredJWT } from 'jose';
import { buildDaemon } from '../../src/daemon/app.js';
import { daemonDeps } from '../../src/daemon/wiring.js';
import { addActor } from '../../src/provisioning/actor.js';
import { addChannel } from '../../src/provisioning/channel.js';
import { SqliteStore } from '../../src/store/sqlite/store.js';
import {
  chatForm,
  chatHeaders,
  collabActivity,
  collabToken,
  OpenIdServer,
  signingKey,
  type SigningKey,
  type TokenClaims,
} from '../helpers/channels.js';
import { fixture, type Fixture } from '../helpers/fixture.js';
import { logCapture } from '../helpers/log-capture.js';
import { capability, register } from '../helpers/registry.js';

const SECRET = 'chat-signing-secret-for-tests-0123456789';
const ENV = 'SVC_TEST_CHAT_SIGNING_SECRET';
const APP = '5c1f0a2e-app-id';
const ISS = 'https://api.collab.example.test';

const pay = (step: string, actor = 'bot') => ({
  tenant_id: 'acme',
  actor_id: actor,
  capability: 'payments.send',
  action: 'write',
  task_id: 't1',
  effect_key_step: step,
  amount_usd: 25,
});

/**
 * The approval-channel callback over app.inject with real proofs: HMACs computed as the
 * chat platform computes them, and JWTs signed by jose with keys a real OpenID metadata and
 * JWKS server on loopback publishes. Each bad case changes one thing from a good request.
 */
describe('POST /approvals/{channel}/callback', () => {
  let f: Fixture;
  let idp: OpenIdServer;
  let keyA: SigningKey;
  let keyB: SigningKey;
  let stranger: SigningKey;
  const tokens: Record<string, string> = {};

  const nowSec = () => Math.floor(f.now.value.getTime() / 1000);
  const defer = async (step: string, actor = 'bot') => {
    const r = await f.app.inject({
      method: 'POST',
      url: '/v1/action',
      headers: { authorization: `Bearer ${tokens[actor]}` },
      payload: pay(step, actor),
    });
    expect(r.statusCode).toBe(202);
    return r.json().approval.approval_id as string;
  };
  const resume = (step: string) =>
    f.app.inject({
      method: 'POST',
      url: '/v1/action/resume',
      headers: { authorization: `Bearer ${tokens.bot}` },
      payload: pay(step),
    });
  const post = (channel: string, headers: Record<string, string>, payload: string) =>
    f.app.inject({ method: 'POST', url: `/approvals/${channel}/callback`, headers, payload });
  const chat = (
    userId: string,
    approvalId: string,
    decision: 'approve' | 'deny' = 'approve',
    o: { secret?: string; ts?: number; channel?: string } = {},
  ) => {
    const body = chatForm(userId, approvalId, decision);
    return post(o.channel ?? 'ops-chat', chatHeaders(o.secret ?? SECRET, o.ts ?? nowSec(), body), body);
  };
  const claims = (over: Partial<TokenClaims> = {}): TokenClaims => ({
    aud: APP,
    iss: ISS,
    iat: nowSec(),
    exp: nowSec() + 300,
    ...over,
  });
  const collab = (token: string | undefined, activity: object, channel = 'ops-collab') =>
    post(
      channel,
      {
        'content-type': 'application/json',
        ...(token !== undefined ? { authorization: `Bearer ${token}` } : {}),
      },
      JSON.stringify(activity),
    );
  const approval = async (id: string) =>
    (
      await f.app.inject({ url: `/v1/approvals/${id}`, headers: { authorization: `Bearer ${tokens.alice}` } })
    ).json();

  beforeAll(async () => {
    process.env[ENV] = SECRET;
    [keyA, keyB, stranger] = await Promise.all([
      signingKey('key-a'),
      signingKey('key-b', 'ES256'),
      signingKey('key-x'),
    ]);
  });
  afterAll(() => {
    delete process.env[ENV];
  });

  beforeEach(async () => {
    idp = await new OpenIdServer().start();
    idp.keys = [keyA];
    f = await fixture();
    const at = f.now.value;
    const human = (id: string, roles: ('approver' | 'manager')[], chatUserId: string, collabUserId: string) =>
      addActor(f.store, { tenantId: 'acme', id, kind: 'human', roles, chatUserId, collabUserId }, at);
    await human('bob', ['approver'], 'U_BOB', 'aad-bob');
    await human('hank', ['approver'], 'U_HANK', 'aad-hank');
    await human('erin', [], 'U_ERIN', 'aad-erin');
    await addActor(f.store, { tenantId: 'other', id: 'oscar', kind: 'agent', managerId: 'olga' }, at);
    await register(f.store, 'acme', {
      caps: [capability('acme', 'payments.send', { actions: ['write'], irreversible: true, tier: 4 })],
      grants: [
        ['bot', 'payments.send'],
        ['hank', 'payments.send'],
      ],
      tasks: [{ id: 't1', sponsor: 'alice', budget: 1_000_000_000n }],
    });
    await register(f.store, 'other', {
      caps: [capability('other', 'payments.send', { actions: ['write'], irreversible: true })],
      grants: [['oscar', 'payments.send']],
      tasks: [{ id: 't1', sponsor: 'olga', budget: 1_000_000_000n }],
    });
    tokens.alice = f.adminToken;
    tokens.bot = await f.token('acme', 'bot');
    tokens.hank = await f.token('acme', 'hank');
    tokens.oscar = await f.token('other', 'oscar');
    await addChannel(
      f.store,
      { id: 'ops-chat', tenantId: 'acme', kind: 'chat', signingSecretRef: `env:${ENV}` },
      at,
    );
    await addChannel(
      f.store,
      {
        id: 'ops-collab',
        tenantId: 'acme',
        kind: 'collab',
        openidMetadataUrl: idp.metadataUrl,
        appId: APP,
        issuer: ISS,
      },
      at,
    );
  });
  afterEach(async () => {
    await f.close();
    await idp.stop();
  });

  describe('team chat', () => {
    it('approves as the mapped human, answers a message that replaces the card, and the action resumes', async () => {
      const id = await defer('c1');
      const r = await chat('U_BOB', id);
      expect(r.statusCode).toBe(200);
      const msg = r.json();
      expect(msg).toMatchObject({ response_type: 'in_channel', replace_original: true });
      expect(msg.text).toMatch(
        new RegExp(`^Approved by bob: payments.send write for bot on task t1 \\(${id}\\)`),
      );
      expect(msg.blocks[0]).toMatchObject({ type: 'section', text: { type: 'mrkdwn' } });
      expect(msg.metadata.event_payload).toMatchObject({
        approval_id: id,
        status: 'approved',
        decided_by: 'bob',
      });
      expect(await approval(id)).toMatchObject({
        status: 'approved',
        decided_by: 'bob',
        channel: 'chat',
        note: 'chat channel ops-chat, user U_BOB',
      });
      const resumed = await resume('c1');
      expect(resumed.statusCode).toBe(200);
      expect(resumed.json()).toMatchObject({ decision: 'allowed', approval: { status: 'consumed' } });
    });

    it('a denial through chat ends in a refusal on resume', async () => {
      const id = await defer('c2');
      expect((await chat('U_BOB', id, 'deny')).json().text).toMatch(/^Denied by bob/);
      const r = await resume('c2');
      expect(r.statusCode).toBe(403);
      expect(r.json().code).toBe('approval_denied');
    });

    it('a wrong secret is 401 and decides nothing', async () => {
      const id = await defer('c3');
      const r = await chat('U_BOB', id, 'approve', { secret: `${SECRET}x` });
      expect(r.statusCode).toBe(401);
      expect(r.json().code).toBe('bad_signature');
      expect((await approval(id)).status).toBe('pending');
    });

    it('a timestamp more than five minutes off is 401, even correctly signed', async () => {
      const id = await defer('c4');
      for (const ts of [nowSec() - 301, nowSec() + 301]) {
        const r = await chat('U_BOB', id, 'approve', { ts });
        expect(r.statusCode).toBe(401);
        expect(r.json().code).toBe('stale_request');
      }
      expect((await chat('U_BOB', id, 'approve', { ts: nowSec() - 299 })).statusCode).toBe(200);
    });

    it('a replayed request is 401, also through another daemon on the same database', async () => {
      const id = await defer('c5');
      const body = chatForm('U_BOB', id, 'deny');
      const headers = chatHeaders(SECRET, nowSec(), body);
      expect((await post('ops-chat', headers, body)).statusCode).toBe(200);
      const replay = await post('ops-chat', headers, body);
      expect(replay.statusCode).toBe(401);
      expect(replay.json().code).toBe('replayed_request');

      const store = SqliteStore.open(f.dir.database, { clock: () => f.now.value });
      const second = buildDaemon(daemonDeps(f.dir, store, { authMode: 'token', clock: () => f.now.value }), {
        logger: false,
      });
      try {
        const r = await second.inject({
          method: 'POST',
          url: '/approvals/ops-chat/callback',
          headers,
          payload: body,
        });
        expect(r.statusCode).toBe(401);
        expect(r.json().code).toBe('replayed_request');
      } finally {
        await second.close();
        await store.close();
      }
    });

    it('proof is checked before anything in the body is read', async () => {
      const garbage = 'this is not a form %%% {';
      const noHeaders = await post(
        'ops-chat',
        { 'content-type': 'application/x-www-form-urlencoded' },
        garbage,
      );
      expect(noHeaders.statusCode).toBe(401);
      expect(noHeaders.json().code).toBe('missing_signature');
      const badSig = await post(
        'ops-chat',
        {
          ...chatHeaders(SECRET, nowSec(), 'other bytes'),
          'content-type': 'application/x-www-form-urlencoded',
        },
        garbage,
      );
      expect(badSig.statusCode).toBe(401);
      const signed = await post('ops-chat', chatHeaders(SECRET, nowSec(), garbage), garbage);
      expect(signed.statusCode).toBe(400);
      expect(signed.json().field).toBe('payload');
      const wrongShape = new URLSearchParams({
        payload: JSON.stringify({ type: 'view_submission' }),
      }).toString();
      const shape = await post('ops-chat', chatHeaders(SECRET, nowSec(), wrongShape), wrongShape);
      expect(shape.statusCode).toBe(400);
      expect(shape.json().field).toBe('payload.type');
      // U+0000 anywhere in the payload is refused at the edge, naming where, on either store.
      const nul = chatForm('U-bob\u0000', 'apr_x', 'approve');
      const withNul = await post('ops-chat', chatHeaders(SECRET, nowSec(), nul), nul);
      expect(withNul.statusCode).toBe(400);
      expect(withNul.json()).toMatchObject({
        field: 'payload.user.id',
        reason: 'payload.user.id: expected text without NUL (U+0000)',
      });
    });

    it('a user that maps to no approver is 403; a mapped human who may not decide is 403', async () => {
      const id = await defer('c6');
      const unmapped = await chat('U_NOBODY', id);
      expect(unmapped.statusCode).toBe(403);
      expect(unmapped.json().code).toBe('unmapped_user');
      const bystander = await chat('U_ERIN', id);
      expect(bystander.statusCode).toBe(403);
      expect(bystander.json().code).toBe('not_an_approver');
      expect((await approval(id)).status).toBe('pending');
    });

    it('the requester mapped through chat never approves its own request: 403', async () => {
      const id = await defer('c7', 'hank');
      const r = await chat('U_HANK', id);
      expect(r.statusCode).toBe(403);
      expect(r.json().code).toBe('self_approval');
    });

    it('a second decision is 409, whichever channel made the first', async () => {
      const id = await defer('c8');
      expect((await chat('U_BOB', id)).statusCode).toBe(200);
      const twice = await chat('U_BOB', id, 'deny');
      expect(twice.statusCode).toBe(409);
      expect(twice.json().code).toBe('already_decided');
      const token = await collabToken(keyA, claims());
      expect((await collab(token, collabActivity('aad-bob', id, 'deny'))).statusCode).toBe(409);
    });

    it('an unknown channel is 404; a channel decides only its own tenant’s approvals', async () => {
      const id = await defer('c9');
      const unknown = await chat('U_BOB', id, 'approve', { channel: 'no-such-channel' });
      expect(unknown.statusCode).toBe(404);
      expect(unknown.json()).toEqual({ code: 'unknown_channel', reason: 'no such approval channel' });
      const theirs = await f.app.inject({
        method: 'POST',
        url: '/v1/action',
        headers: { authorization: `Bearer ${tokens.oscar}` },
        payload: { ...pay('o1', 'oscar'), tenant_id: 'other' },
      });
      expect(theirs.statusCode).toBe(202);
      const other = await chat('U_BOB', theirs.json().approval.approval_id as string);
      expect(other.statusCode).toBe(404);
    });

    it('a signing secret that cannot be resolved is 503, naming no secret and no reference; the log names it', async () => {
      const id = await defer('c10');
      const log = logCapture();
      const store = SqliteStore.open(f.dir.database, { clock: () => f.now.value });
      const app = buildDaemon(daemonDeps(f.dir, store, { authMode: 'token', clock: () => f.now.value }), {
        logger: { stream: log.stream },
      });
      delete process.env[ENV];
      try {
        const body = chatForm('U_BOB', id, 'approve');
        const r = await app.inject({
          method: 'POST',
          url: '/approvals/ops-chat/callback',
          headers: chatHeaders(SECRET, nowSec(), body),
          payload: body,
        });
        expect(r.statusCode).toBe(503);
        expect(r.json()).toEqual({
          code: 'unavailable',
          reason: 'this approval channel cannot verify callbacks right now',
          remedy: 'the deployment operator can see why in the daemon log, under this request id',
          request_id: r.headers['x-request-id'],
        });
        expect(r.body).not.toContain(SECRET);
        expect(r.body).not.toContain(ENV);
        expect(log.text()).toContain(`env:${ENV}`);
        expect(log.text()).not.toContain(SECRET);
      } finally {
        process.env[ENV] = SECRET;
        await app.close();
        await store.close();
      }
    });
  });

  describe('collaboration suite', () => {
    it('approves as the mapped human and answers a bot activity; the action resumes', async () => {
      const id = await defer('b1');
      const r = await collab(await collabToken(keyA, claims()), collabActivity('aad-bob', id, 'approve'));
      expect(r.statusCode).toBe(200);
      const reply = r.json();
      expect(reply).toMatchObject({
        type: 'message',
        replyToId: 'act-1',
        value: { approval_id: id, status: 'approved', decided_by: 'bob' },
      });
      expect(reply.attachments[0]).toMatchObject({ contentType: 'application/vnd.microsoft.card.adaptive' });
      expect(reply.text).toMatch(/^Approved by bob/);
      expect(await approval(id)).toMatchObject({
        channel: 'collab',
        note: 'collab channel ops-collab, user aad-bob',
      });
      expect((await resume('b1')).json().decision).toBe('allowed');
    });

    it('each bad token is 401 on its own, and decides nothing', async () => {
      const id = await defer('b2');
      const hs256 = await new SignJWT({})
        .setProtectedHeader({ alg: 'HS256', kid: keyA.kid })
        .setAudience(APP)
        .setIssuer(ISS)
        .setIssuedAt(nowSec())
        .setExpirationTime(nowSec() + 300)
        .sign(new TextEncoder().encode('a-shared-secret-that-proves-nothing'));
      const none = new UnsecuredJWT({})
        .setAudience(APP)
        .setIssuer(ISS)
        .setIssuedAt(nowSec())
        .setExpirationTime(nowSec() + 300)
        .encode();
      const [good] = [await collabToken(keyA, claims())];
      const tamperedSignature = `${good.slice(0, good.lastIndexOf('.') + 1)}${(await collabToken(stranger, claims())).split('.')[2]}`;
      const cases: [string, string | undefined][] = [
        ['wrong audience', await collabToken(keyA, claims({ aud: 'another-bot' }))],
        ['wrong issuer', await collabToken(keyA, claims({ iss: 'https://evil.example.test' }))],
        ['expired', await collabToken(keyA, claims({ iat: nowSec() - 900, exp: nowSec() - 61 }))],
        ['no expiry', await collabToken(keyA, claims({ exp: undefined }))],
        ['alg none', none],
        ['HS256', hs256],
        ['unknown key id', await collabToken(stranger, claims())],
        ['bad signature', tamperedSignature],
        ['no token', undefined],
        ['not a JWT', 'not-a-jwt'],
        [
          'other service url',
          await collabToken(keyA, claims({ serviceurl: 'https://elsewhere.example.test/' })),
        ],
      ];
      for (const [what, token] of cases) {
        const r = await collab(token, collabActivity('aad-bob', id, 'approve'));
        expect(r.statusCode, what).toBe(401);
        expect(r.json().code, what).toMatch(/^(bad_token|token_expired|missing_token)$/);
      }
      expect((await approval(id)).status).toBe('pending');
      const withinSkew = await collabToken(keyA, claims({ iat: nowSec() - 600, exp: nowSec() - 30 }));
      expect((await collab(withinSkew, collabActivity('aad-bob', id, 'approve'))).statusCode).toBe(200);
    });

    it('keys are cached, and fetched again when a token names a key id the platform rotated in', async () => {
      const first = await collab(
        await collabToken(keyA, claims()),
        collabActivity('aad-bob', await defer('b3'), 'approve'),
      );
      expect(first.statusCode).toBe(200);
      await collab(
        await collabToken(keyA, claims()),
        collabActivity('aad-bob', await defer('b4'), 'approve'),
      );
      expect(idp.hits).toEqual({ metadata: 1, jwks: 1 });

      idp.keys = [keyA, keyB];
      const rotated = await collab(
        await collabToken(keyB, claims(), 'ES256'),
        collabActivity('aad-bob', await defer('b5'), 'approve'),
      );
      expect(rotated.statusCode).toBe(200);
      expect(idp.hits).toEqual({ metadata: 2, jwks: 2 });

      // Within the cool-down another unknown key id is refused without asking the platform again.
      const unknown = await collab(
        await collabToken(stranger, claims()),
        collabActivity('aad-bob', await defer('b6'), 'approve'),
      );
      expect(unknown.statusCode).toBe(401);
      expect(idp.hits).toEqual({ metadata: 2, jwks: 2 });
    });

    it('an unmapped user, a bystander and the requester are 403; a second decision is 409', async () => {
      const id = await defer('b7', 'hank');
      const token = await collabToken(keyA, claims());
      const code = async (aad: string) => {
        const r = await collab(token, collabActivity(aad, id, 'approve'));
        return `${r.statusCode}:${r.json().code ?? ''}`;
      };
      expect(await code('aad-nobody')).toBe('403:unmapped_user');
      expect(await code('U_BOB')).toBe('403:unmapped_user');
      expect(await code('aad-erin')).toBe('403:not_an_approver');
      expect(await code('aad-hank')).toBe('403:self_approval');
      expect(await code('aad-bob')).toBe('200:');
      expect(await code('aad-bob')).toBe('409:already_decided');
    });

    it('an activity that is not an invoke, or lacks the user object id, is 400 after the token held', async () => {
      const token = await collabToken(keyA, claims());
      const id = await defer('b8');
      const message = await collab(token, { ...collabActivity('aad-bob', id, 'approve'), type: 'message' });
      expect(message.statusCode).toBe(400);
      expect(message.json().field).toBe('activity.type');
      const anonymous = await collab(token, {
        ...collabActivity('aad-bob', id, 'approve'),
        from: { id: '29:1' },
      });
      expect(anonymous.json().field).toBe('activity.from.aadObjectId');
      const nul = await collab(token, collabActivity('aad-bob\u0000', id, 'approve'));
      expect(nul.statusCode).toBe(400);
      expect(nul.json()).toMatchObject({
        field: 'activity.from.aadObjectId',
        reason: 'activity.from.aadObjectId: expected text without NUL (U+0000)',
      });
      expect((await collab(undefined, { nonsense: true })).statusCode).toBe(401);
    });

    it('a metadata document that cannot be fetched is 503, not a pass, and is not asked again at once', async () => {
      await addChannel(
        f.store,
        {
          id: 'dead-collab',
          tenantId: 'acme',
          kind: 'collab',
          openidMetadataUrl: 'http://127.0.0.1:9/.well-known/openid-configuration',
          appId: APP,
          issuer: ISS,
        },
        f.now.value,
      );
      const token = await collabToken(keyA, claims());
      const dead = await collab(
        token,
        collabActivity('aad-bob', await defer('b9'), 'approve'),
        'dead-collab',
      );
      expect(dead.statusCode).toBe(503);

      idp.failing = true;
      const id = await defer('b10');
      for (let i = 0; i < 3; i++) {
        expect((await collab(token, collabActivity('aad-bob', id, 'approve'))).statusCode).toBe(503);
      }
      expect(idp.hits.metadata).toBe(1);
      expect((await approval(id)).status).toBe('pending');
    });
  });
});
