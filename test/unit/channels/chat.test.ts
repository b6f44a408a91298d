import { describe, expect, it } from 'vitest';
import { parseChatPayload, verifyChatSignature } from '../../../src/channels/chat.js';

// The worked example of the chat platform's request signing documentation
// (https://api.slack.com/authentication/verifying-requests-from-slack): the same
// `v0:timestamp:body` HMAC-SHA256 scheme, sent there under X-Slack-* header names.
const VECTOR = {
  secret: '8f742231b10e8888abcd99yyyzzz85a5',
  timestamp: 1531420618,
  body: 'token=xyzz0WbapA4vBCDEFasx0q6G&team_id=T1DC2JH3J&team_domain=testteamnow&channel_id=G8PSS9T3V&channel_name=foobar&user_id=U2CERLKJA&user_name=roadrunner&command=%2Fwebhook-collect&text=&response_url=https%3A%2F%2Fhooks.slack.com%2Fcommands%2FT1DC2JH3J%2F397700885554%2F96rGlfmibIGlgcZRskXaIFfN&trigger_id=398738663015.47445629121.803a0bc887a14d10d2c447fce8b6703c',
  signature: 'v0=a2114d57b48eac39b9ad189dd8316235a7b4a8d21a10bd27519666489c69b503',
};

const headers = (over: Record<string, string | undefined> = {}) => ({
  'x-chat-request-timestamp': String(VECTOR.timestamp),
  'x-chat-signature': VECTOR.signature,
  ...over,
});
const check = (h: Record<string, string | undefined>, body = VECTOR.body, nowSec = VECTOR.timestamp + 10) =>
  verifyChatSignature(h, Buffer.from(body), VECTOR.secret, nowSec);
const code = (fn: () => unknown) => {
  try {
    fn();
    return 'ok';
  } catch (err) {
    return (err as { code: string }).code;
  }
};

describe('team-chat request signing', () => {
  it('accepts the platform’s published example inside the window', () => {
    expect(check(headers())).toEqual({ timestamp: VECTOR.timestamp, signature: VECTOR.signature.slice(3) });
    expect(code(() => check(headers(), VECTOR.body, VECTOR.timestamp + 300))).toBe('ok');
    expect(code(() => check(headers(), VECTOR.body, VECTOR.timestamp - 300))).toBe('ok');
  });

  it('refuses each change on its own', () => {
    expect(code(() => check(headers(), `${VECTOR.body}&x=1`))).toBe('bad_signature');
    expect(
      code(() =>
        verifyChatSignature(headers(), Buffer.from(VECTOR.body), `${VECTOR.secret}0`, VECTOR.timestamp),
      ),
    ).toBe('bad_signature');
    expect(code(() => check(headers({ 'x-chat-request-timestamp': String(VECTOR.timestamp + 1) })))).toBe(
      'bad_signature',
    );
    expect(
      code(() => check(headers({ 'x-chat-signature': VECTOR.signature.toUpperCase().replace('V0', 'v0') }))),
    ).toBe('bad_signature');
    expect(code(() => check(headers({ 'x-chat-signature': 'v1=' + VECTOR.signature.slice(3) })))).toBe(
      'bad_signature',
    );
    expect(code(() => check(headers({ 'x-chat-signature': VECTOR.signature.slice(0, -2) })))).toBe(
      'bad_signature',
    );
    expect(code(() => check(headers(), VECTOR.body, VECTOR.timestamp + 301))).toBe('stale_request');
    expect(code(() => check(headers(), VECTOR.body, VECTOR.timestamp - 301))).toBe('stale_request');
    expect(code(() => check(headers({ 'x-chat-request-timestamp': '1531420618.5' })))).toBe('bad_timestamp');
    expect(code(() => check(headers({ 'x-chat-signature': undefined })))).toBe('missing_signature');
    expect(code(() => check(headers({ 'x-chat-request-timestamp': undefined })))).toBe('missing_signature');
  });
});

describe('team-chat payload', () => {
  const form = (payload: unknown) =>
    Buffer.from(
      new URLSearchParams({
        payload: typeof payload === 'string' ? payload : JSON.stringify(payload),
      }).toString(),
    );
  const press = {
    type: 'block_actions',
    user: { id: 'U1' },
    actions: [{ action_id: 'deny', value: 'apr_1' }],
  };

  it('reads the button press: who, which approval, which way', () => {
    expect(parseChatPayload(form(press))).toEqual({ userId: 'U1', approvalId: 'apr_1', decision: 'deny' });
  });

  it('names the offending field', () => {
    const field = (b: Buffer) => {
      try {
        parseChatPayload(b);
        return 'ok';
      } catch (err) {
        return (err as { field: string }).field;
      }
    };
    expect(field(Buffer.from('user=U1'))).toBe('payload');
    expect(field(form('{not json'))).toBe('payload');
    expect(field(form({ ...press, type: 'view_submission' }))).toBe('payload.type');
    expect(field(form({ ...press, actions: [{ action_id: 'maybe', value: 'apr_1' }] }))).toBe(
      'payload.actions.0.action_id',
    );
    expect(field(form({ ...press, actions: [press.actions[0], press.actions[0]] }))).toBe('payload.actions');
    expect(field(form({ ...press, user: {} }))).toBe('payload.user.id');
  });
});
