import type { ChannelConfig, ChannelKind } from '../../core/channel.js';

/** An approval_channels row as both drivers return it. */
export interface ChannelRow {
  id: string;
  tenant_id: string;
  kind: ChannelKind;
  signing_secret_ref: string | null;
  openid_metadata_url: string | null;
  app_id: string | null;
  issuer: string | null;
  created_at: string;
}

export function toChannel(r: ChannelRow): ChannelConfig {
  const base = { id: r.id, tenantId: r.tenant_id, createdAt: r.created_at };
  return r.kind === 'chat'
    ? { ...base, kind: 'chat', signingSecretRef: r.signing_secret_ref! }
    : {
        ...base,
        kind: 'collab',
        openidMetadataUrl: r.openid_metadata_url!,
        appId: r.app_id!,
        issuer: r.issuer!,
      };
}

/**
 * The values of a channel's row in column order (id, tenant_id, kind, signing_secret_ref,
 * openid_metadata_url, app_id, issuer, created_at); the other kind's columns stay null.
 */
export const channelValues = (c: ChannelConfig): (string | null)[] => [
  c.id,
  c.tenantId,
  c.kind,
  c.kind === 'chat' ? c.signingSecretRef : null,
  c.kind === 'collab' ? c.openidMetadataUrl : null,
  c.kind === 'collab' ? c.appId : null,
  c.kind === 'collab' ? c.issuer : null,
  c.createdAt,
];

/** The user-id column each kind of channel maps its users through. */
export const USER_COLUMN: Record<ChannelKind, string> = { chat: 'chat_user_id', collab: 'collab_user_id' };
