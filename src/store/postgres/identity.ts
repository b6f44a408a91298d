import type { Actor } from '../../core/actor.js';
import { actorCollision, actorValues, toActor, type ActorRow } from '../rows/actor.js';
import type { ActorRepo, NewTenant, Tenant, TenantRepo } from '../ports.js';
import { pgStoreError, type PgDb, type PgTx } from './database.js';
import { insertKey } from './keys.js';
import { insertToken } from './tokens.js';

export async function insertActor(tx: PgTx, a: Actor): Promise<void> {
  await tx.query(
    `INSERT INTO actors (tenant_id, id, kind, roles, manager_id, cert_subject, display_name, chat_user_id,
       collab_user_id, created_at)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10)`,
    actorValues(a),
  );
}

export class PgTenants implements TenantRepo {
  constructor(private readonly db: PgDb) {}

  async create(input: NewTenant): Promise<void> {
    try {
      await this.db.tx(async (tx) => {
        await tx.query('INSERT INTO tenants (id, created_at) VALUES ($1, $2)', [
          input.tenant.id,
          input.tenant.createdAt,
        ]);
        await insertKey(tx, { ...input.signingKey, status: 'active', retiredAt: null });
        if (input.admin) await insertActor(tx, input.admin);
        if (input.adminToken) await insertToken(tx, input.adminToken);
      });
    } catch (err) {
      throw pgStoreError(err, `tenant ${input.tenant.id}`);
    }
  }

  async get(id: string): Promise<Tenant | undefined> {
    const [r] = await this.db.query<{ id: string; created_at: string }>(
      'SELECT id, created_at FROM tenants WHERE id = $1',
      [id],
    );
    return r && { id: r.id, createdAt: r.created_at };
  }

  async list(): Promise<Tenant[]> {
    const rows = await this.db.query<{ id: string; created_at: string }>(
      'SELECT id, created_at FROM tenants ORDER BY id',
    );
    return rows.map((r) => ({ id: r.id, createdAt: r.created_at }));
  }

  async approvalTier(id: string): Promise<number | undefined> {
    // BIGINT arrives as text from pg.
    const [r] = await this.db.query<{ approval_tier: string | number }>(
      'SELECT approval_tier FROM tenants WHERE id = $1',
      [id],
    );
    return r && Number(r.approval_tier);
  }
}

export class PgActors implements ActorRepo {
  constructor(private readonly db: PgDb) {}

  async add(actor: Actor): Promise<void> {
    try {
      await this.db.tx((tx) => insertActor(tx, actor));
    } catch (err) {
      throw pgStoreError(err, actorCollision(actor, collidedIndex(err)));
    }
  }

  async get(tenantId: string, id: string): Promise<Actor | undefined> {
    const [r] = await this.db.query<ActorRow>('SELECT * FROM actors WHERE tenant_id = $1 AND id = $2', [
      tenantId,
      id,
    ]);
    return r && toActor(r);
  }

  async list(tenantId: string): Promise<Actor[]> {
    const rows = await this.db.query<ActorRow>('SELECT * FROM actors WHERE tenant_id = $1 ORDER BY id', [
      tenantId,
    ]);
    return rows.map(toActor);
  }

  async findByCertSubject(subject: string): Promise<Actor | undefined> {
    const [r] = await this.db.query<ActorRow>('SELECT * FROM actors WHERE cert_subject = $1', [subject]);
    return r && toActor(r);
  }
}

/** The unique index an insert hit, as PostgreSQL names it. */
function collidedIndex(err: unknown): Parameters<typeof actorCollision>[1] {
  const { code, constraint } = err as { code?: string; constraint?: string };
  if (code !== '23505') return undefined;
  return constraint === 'actors_chat_user'
    ? 'chat_user'
    : constraint === 'actors_collab_user'
      ? 'collab_user'
      : 'key';
}
