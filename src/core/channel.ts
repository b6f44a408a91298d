import { invalidField, SvcError } from './errors.js';
import { checkSlug } from './ids.js';

/**
 * Approval channels (semantics.md, Approvals): configured per deployment, each with an id
 * unique in the deployment, exactly one tenant, and a kind that says how a callback proves
 * it came from the channel. The configuration names where the proof material lives; it
 * never holds a secret.
 */
export const CHANNEL_KINDS = ['chat', 'collab'] as const;
export type ChannelKind = (typeof CHANNEL_KINDS)[number];

interface ChannelBase {
  id: string;
  tenantId: string;
  createdAt: string;
}

export interface ChatChannel extends ChannelBase {
  kind: 'chat';
  /** a credential reference (`env:NAME`, `file:/path`, `secret:name`), resolved at each callback */
  signingSecretRef: string;
}

export interface CollabChannel extends ChannelBase {
  kind: 'collab';
  openidMetadataUrl: string;
  /** the bot application id: the required audience of every token */
  appId: string;
  issuer: string;
}

export type ChannelConfig = ChatChannel | CollabChannel;

export interface ChannelInput {
  id: string;
  tenantId: string;
  kind: string;
  signingSecretRef?: string | undefined;
  openidMetadataUrl?: string | undefined;
  appId?: string | undefined;
  issuer?: string | undefined;
}

const LOOPBACK = new Set(['127.0.0.1', '[::1]', 'localhost']);

/**
 * Keys are fetched from this address, so it must be authenticated by TLS; plain http is
 * accepted only on the loopback interface, where no one else is on the path.
 */
export function checkMetadataUrl(field: string, text: string): string {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    throw invalidField(field, 'an https URL of an OpenID metadata document');
  }
  const secure = url.protocol === 'https:' || (url.protocol === 'http:' && LOOPBACK.has(url.hostname));
  if (!secure || url.username !== '' || url.password !== '' || url.hash !== '' || text.length > 2000) {
    throw invalidField(
      field,
      'an https URL of an OpenID metadata document (http only on 127.0.0.1, [::1] or localhost), without credentials or fragment',
    );
  }
  return url.href;
}

/** Identifiers issued by the platforms (application ids, issuers): exact, printable, bounded. */
function checkPlatformId(field: string, value: string | undefined, max: number): string {
  if (value === undefined || value.length === 0 || value.length > max || !/^[\x21-\x7e]+$/.test(value)) {
    throw invalidField(field, `1 to ${max} printable characters without spaces`);
  }
  return value;
}

const FLAG: Record<'signingSecretRef' | 'openidMetadataUrl' | 'appId' | 'issuer', string> = {
  signingSecretRef: 'signing-secret-ref',
  openidMetadataUrl: 'openid-metadata',
  appId: 'app-id',
  issuer: 'issuer',
};

/** A flag of the other kind is a mistake worth naming, not something to ignore. */
function refuseFlags(kind: ChannelKind, input: ChannelInput, fields: (keyof typeof FLAG)[]): void {
  for (const f of fields) {
    if (input[f] !== undefined) {
      throw new SvcError('invalid_request', `${FLAG[f]}: not used by a ${kind} channel`, { field: FLAG[f] });
    }
  }
}

/** A channel's own fields; whether the tenant exists and the secret reference parses is the caller's question. */
export function checkChannelInput(input: ChannelInput, createdAt: string): ChannelConfig {
  checkSlug('id', input.id);
  checkSlug('tenant', input.tenantId);
  const base = { id: input.id, tenantId: input.tenantId, createdAt };
  if (input.kind === 'chat') {
    refuseFlags('chat', input, ['openidMetadataUrl', 'appId', 'issuer']);
    if (input.signingSecretRef === undefined) {
      throw new SvcError('invalid_request', 'signing-secret-ref: a chat channel needs its signing secret', {
        field: 'signing-secret-ref',
        remedy: 'add --signing-secret-ref env:NAME (or file:/path, or secret:name)',
      });
    }
    return { ...base, kind: 'chat', signingSecretRef: input.signingSecretRef };
  }
  if (input.kind === 'collab') {
    refuseFlags('collab', input, ['signingSecretRef']);
    if (input.openidMetadataUrl === undefined) {
      throw new SvcError(
        'invalid_request',
        'openid-metadata: a collab channel needs its OpenID metadata URL',
        {
          field: 'openid-metadata',
        },
      );
    }
    return {
      ...base,
      kind: 'collab',
      openidMetadataUrl: checkMetadataUrl('openid-metadata', input.openidMetadataUrl),
      appId: checkPlatformId('app-id', input.appId, 200),
      issuer: checkPlatformId('issuer', input.issuer, 500),
    };
  }
  throw invalidField('kind', `one of ${CHANNEL_KINDS.join(', ')}`);
}
