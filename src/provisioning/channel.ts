import { checkChannelInput, type ChannelConfig, type ChannelInput } from '../core/channel.js';
import { SvcError } from '../core/errors.js';
import { checkSlug } from '../core/ids.js';
import { formatCredentialRef, parseCredentialRef } from '../integration/credential-ref.js';
import type { Store } from '../store/ports.js';
import { requireTenant } from './references.js';

/** The stable `--json` shape of an approval channel; a secret reference, never a secret. */
export interface ChannelView {
  channel_id: string;
  tenant_id: string;
  kind: 'chat' | 'collab';
  callback_path: string;
  signing_secret_ref: string | null;
  openid_metadata: string | null;
  app_id: string | null;
  issuer: string | null;
  created_at: string;
}

export function channelView(c: ChannelConfig): ChannelView {
  return {
    channel_id: c.id,
    tenant_id: c.tenantId,
    kind: c.kind,
    callback_path: `/approvals/${c.id}/callback`,
    signing_secret_ref: c.kind === 'chat' ? c.signingSecretRef : null,
    openid_metadata: c.kind === 'collab' ? c.openidMetadataUrl : null,
    app_id: c.kind === 'collab' ? c.appId : null,
    issuer: c.kind === 'collab' ? c.issuer : null,
    created_at: c.createdAt,
  };
}

/** A channel's fields checked, its secret reference in canonical form; the store is not asked. */
export function prepareChannel(input: ChannelInput, at: string): ChannelConfig {
  const ref =
    input.signingSecretRef === undefined
      ? undefined
      : formatCredentialRef(parseCredentialRef('signing-secret-ref', input.signingSecretRef));
  return checkChannelInput({ ...input, signingSecretRef: ref }, at);
}

/** Whether two configurations say the same thing, whenever each was made. */
export function sameChannel(a: ChannelConfig, b: ChannelConfig): boolean {
  const text = (c: ChannelConfig) => JSON.stringify({ ...channelView(c), created_at: '' });
  return text(a) === text(b);
}

/**
 * Configure a channel for one tenant. The signing secret is named by a credential
 * reference the daemon resolves at each callback, so rotating it needs no restart and the
 * database never holds it.
 */
export async function addChannel(store: Store, input: ChannelInput, now: Date): Promise<ChannelConfig> {
  const channel = prepareChannel(input, now.toISOString());
  await requireTenant(store, channel.tenantId);
  if (await store.channels.get(channel.id)) {
    throw new SvcError('already_exists', `approval channel ${channel.id} already exists`, {
      remedy: `choose another id, or remove it first: svc channel remove ${channel.id}`,
    });
  }
  await store.channels.add(channel);
  return channel;
}

export async function removeChannel(store: Store, id: string): Promise<void> {
  checkSlug('id', id);
  if (!(await store.channels.remove(id))) {
    throw new SvcError('not_found', `no approval channel ${id}`, { remedy: 'see `svc channel list`' });
  }
}
