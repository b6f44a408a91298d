import type { Actor } from '../../core/actor.js';
import type { ChannelConfig, ChannelKind } from '../../core/channel.js';
import type { ChannelRepo } from '../access-ports.js';
import { channelValues, toChannel, USER_COLUMN, type ChannelRow } from '../rows/channel.js';
import { toActor, type ActorRow } from '../rows/actor.js';
import { pgStoreError, type PgDb } from './database.js';

export class PgChannels implements ChannelRepo {
  constructor(private readonly db: PgDb) {}

  async add(c: ChannelConfig): Promise<void> {
    try {
      await this.db.query(
        `INSERT INTO approval_channels (id, tenant_id, kind, signing_secret_ref, openid_metadata_url, app_id, issuer, created_at)
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8)`,
        channelValues(c),
      );
    } catch (err) {
      throw pgStoreError(err, `approval channel ${c.id}`);
    }
  }

  async get(id: string): Promise<ChannelConfig | undefined> {
    const [r] = await this.db.query<ChannelRow>('SELECT * FROM approval_channels WHERE id = $1', [id]);
    return r && toChannel(r);
  }

  async list(tenantId?: string): Promise<ChannelConfig[]> {
    const rows = await this.db.query<ChannelRow>(
      'SELECT * FROM approval_channels WHERE $1::text IS NULL OR tenant_id = $1 ORDER BY id COLLATE "C"',
      [tenantId ?? null],
    );
    return rows.map(toChannel);
  }

  async remove(id: string): Promise<boolean> {
    // The channel's remembered signatures stay until they expire: a channel removed and
    // added again under the same id must still refuse a replay of a captured request.
    const rows = await this.db.query('DELETE FROM approval_channels WHERE id = $1 RETURNING 1', [id]);
    return rows.length === 1;
  }

  async approverFor(tenantId: string, kind: ChannelKind, userId: string): Promise<Actor | undefined> {
    const [r] = await this.db.query<ActorRow>(
      `SELECT * FROM actors WHERE tenant_id = $1 AND ${USER_COLUMN[kind]} = $2`,
      [tenantId, userId],
    );
    return r && toActor(r);
  }

  async rememberSignature(
    channelId: string,
    signature: string,
    expiresAtSec: number,
    nowSec: number,
  ): Promise<boolean> {
    try {
      return await this.db.tx(async (tx) => {
        await tx.query('DELETE FROM channel_signatures WHERE expires_at <= $1', [nowSec]);
        // The primary key decides, across every replica: a replay inserts nothing.
        const rows = await tx.query(
          `INSERT INTO channel_signatures (channel_id, signature, expires_at) VALUES ($1, $2, $3)
           ON CONFLICT DO NOTHING RETURNING 1`,
          [channelId, signature, expiresAtSec],
        );
        return rows.length === 1;
      });
    } catch (err) {
      throw pgStoreError(err, `signature of channel ${channelId}`);
    }
  }
}
