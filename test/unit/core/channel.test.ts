import { describe, expect, it } from 'vitest';
import { checkActorInput } from '../../../src/core/actor.js';
import { checkChannelInput, checkMetadataUrl } from '../../../src/core/channel.js';

const AT = '2026-06-01T12:00:00.000Z';
const field = (fn: () => unknown) => {
  try {
    fn();
    return 'ok';
  } catch (err) {
    return (err as { field?: string }).field ?? 'no field';
  }
};

describe('approval channel configuration', () => {
  const chat = { id: 'ops-chat', tenantId: 'acme', kind: 'chat', signingSecretRef: 'env:CHAT_SECRET' };
  const collab = {
    id: 'ops-collab',
    tenantId: 'acme',
    kind: 'collab',
    openidMetadataUrl: 'https://login.example.test/.well-known/openid-configuration',
    appId: 'app-1',
    issuer: 'https://api.example.test',
  };

  it('a chat channel names its signing secret; a collab channel its metadata, application and issuer', () => {
    expect(checkChannelInput(chat, AT)).toEqual({ ...chat, createdAt: AT });
    expect(checkChannelInput(collab, AT)).toEqual({ ...collab, createdAt: AT });
  });

  it('refuses what is missing, what belongs to the other kind, and unknown kinds', () => {
    expect(field(() => checkChannelInput({ ...chat, signingSecretRef: undefined }, AT))).toBe(
      'signing-secret-ref',
    );
    expect(field(() => checkChannelInput({ ...chat, appId: 'x' }, AT))).toBe('app-id');
    expect(field(() => checkChannelInput({ ...collab, signingSecretRef: 'env:X' }, AT))).toBe(
      'signing-secret-ref',
    );
    expect(field(() => checkChannelInput({ ...collab, issuer: undefined }, AT))).toBe('issuer');
    expect(field(() => checkChannelInput({ ...collab, appId: 'has space' }, AT))).toBe('app-id');
    expect(field(() => checkChannelInput({ ...collab, openidMetadataUrl: undefined }, AT))).toBe(
      'openid-metadata',
    );
    expect(field(() => checkChannelInput({ ...chat, kind: 'email' }, AT))).toBe('kind');
    expect(field(() => checkChannelInput({ ...chat, id: 'Ops Chat' }, AT))).toBe('id');
  });

  it('keys come over https; plain http only on loopback', () => {
    expect(checkMetadataUrl('m', 'http://127.0.0.1:8443/meta')).toBe('http://127.0.0.1:8443/meta');
    expect(checkMetadataUrl('m', 'http://[::1]/meta')).toBe('http://[::1]/meta');
    for (const bad of [
      'http://idp.example.test/meta',
      'ftp://x/y',
      'https://u:p@idp.example.test/',
      'https://x/#f',
      'nope',
    ]) {
      expect(
        field(() => checkMetadataUrl('m', bad)),
        bad,
      ).toBe('m');
    }
  });
});

describe('approver ids', () => {
  it('only humans carry chat and collaboration user ids, kept exactly', () => {
    const bob = checkActorInput(
      { tenantId: 'acme', id: 'bob', kind: 'human', chatUserId: 'U024BE7LH', collabUserId: '29f4e3a1-6c2b' },
      AT,
    );
    expect(bob).toMatchObject({ chatUserId: 'U024BE7LH', collabUserId: '29f4e3a1-6c2b' });
    expect(checkActorInput({ tenantId: 'acme', id: 'amy', kind: 'human' }, AT)).not.toHaveProperty(
      'chatUserId',
    );
    expect(
      field(() =>
        checkActorInput({ tenantId: 'acme', id: 'b', kind: 'agent', managerId: 'bob', chatUserId: 'U1' }, AT),
      ),
    ).toBe('chat-user-id');
    expect(
      field(() =>
        checkActorInput({ tenantId: 'acme', id: 'c', kind: 'human', collabUserId: 'bob@example.com' }, AT),
      ),
    ).toBe('collab-user-id');
  });
});
