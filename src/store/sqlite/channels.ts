import type { Actor } from '../../core/actor.js';
import type { ChannelConfig, ChannelKind } from '../../core/channel.js';
import type { ChannelRepo } from '../access-ports.js';
import { channelValues, toChannel, USER_COLUMN, type ChannelRow } from '../rows/channel.js';
import { prep, storeError, type Db } from './database.js';
import { toActor, type ActorRow } from '../rows/actor.js';
import { writeTransaction } from './write-lock.js';

export class SqliteChannels implements ChannelRepo {
  constructor(private readonly db: Db) {}

  async add(c: ChannelConfig): Promise<void> {
    try {
      prep(
        this.db,
        `INSERT INTO approval_channels (id, tenant_id, kind, signing_secret_ref, openid_metadata_url, app_id, issuer, created_at)
         VALUES (?, ?, ?, ?, ?, ?, ?, ?)`,
      ).run(...channelValues(c));
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
