import type { Actor } from '../../core/actor.js';
import type { ChannelConfig, ChannelKind } from '../../core/channel.js';
import type { ChannelRepo } from '../access-ports.js';
import { prep, storeError, type Db } from './database.js';
import { toActor, type ActorRow } from '../rows/actor.js';
import { writeTransaction } from './write-lock.js';

interface ChannelRow {
  id: string;
  tenant_id: string;
  kind: ChannelKind;
  signing_secret_ref: string | null;
  openid_metadata_url: string | null;
  app_id: string | null;
  issuer: string | null;
  created_at: string;
}

function toChannel(r: ChannelRow): ChannelConfig {
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

/** The user-id column each kind of channel maps its users through. */
const USER_COLUMN: Record<ChannelKind, string> = { chat: 'chat_user_id', collab: 'collab_user_id' };

export class SqliteChannels implements ChannelRepo {
  constructor(private readonly db: Db) {}

  async add(c: ChannelConfig): Promise<void> {
    try {
      prep(
        this.db,
        `INSERT INTO approval_channels (id, tenant_id, kind, signing_secret_ref, openid_metadata_url, app_id, issuer, created_at)
         VALUES (?, ?, ?, ?, ?, ?, ?, ?)`,
      ).run(
        c.id,
        c.tenantId,
        c.kind,
        c.kind === 'chat' ? c.signingSecretRef : null,
        c.kind === 'collab' ? c.openidMetadataUrl : null,
        c.kind === 'collab' ? c.appId : null,
        c.kind === 'collab' ? c.issuer : null,
        c.createdAt,
      );
    } catch (err) {
      throw storeError(err, `approval channel ${c.id}`);
    }
  }

  async get(id: string): Promise<ChannelConfig | undefined> {
    const r = prep(this.db, 'SELECT * FROM approval_channels WHERE id = ?').get(id) as ChannelRow | undefined;
    return r && toChannel(r);
  }

  async list(tenantId?: string): Promise<ChannelConfig[]> {
    const rows = prep(
      this.db,
      'SELECT * FROM approval_channels WHERE ? IS NULL OR tenant_id = ? ORDER BY id',
    ).all(tenantId ?? null, tenantId ?? null) as ChannelRow[];
    return rows.map(toChannel);
  }

  async remove(id: string): Promise<boolean> {
    // The channel's remembered signatures stay until they expire: a channel removed and
    // added again under the same id must still refuse a replay of a captured request.
    return prep(this.db, 'DELETE FROM approval_channels WHERE id = ?').run(id).changes === 1;
  }

  async approverFor(tenantId: string, kind: ChannelKind, userId: string): Promise<Actor | undefined> {
    const r = prep(this.db, `SELECT * FROM actors WHERE tenant_id = ? AND ${USER_COLUMN[kind]} = ?`).get(
      tenantId,
      userId,
    ) as ActorRow | undefined;
    return r && toActor(r);
  }

  async rememberSignature(
    channelId: string,
    signature: string,
    expiresAtSec: number,
    nowSec: number,
  ): Promise<boolean> {
    const tx = this.db.transaction(() => {
      prep(this.db, 'DELETE FROM channel_signatures WHERE expires_at <= ?').run(nowSec);
      // The primary key decides, under the write lock, across every process sharing the file.
      return (
        prep(
          this.db,
          'INSERT INTO channel_signatures (channel_id, signature, expires_at) VALUES (?, ?, ?) ON CONFLICT DO NOTHING',
        ).run(channelId, signature, expiresAtSec).changes === 1
      );
    });
    try {
      return await writeTransaction(this.db, tx);
    } catch (err) {
      throw storeError(err, `signature of channel ${channelId}`);
    }
  }
}
