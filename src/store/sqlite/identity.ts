import type { Actor } from '../../core/actor.js';
import { actorCollision, actorValues, toActor, type ActorRow } from '../rows/actor.js';
import type { ActorRepo, NewTenant, Tenant, TenantRepo } from '../ports.js';
import { prep, storeError, type Db } from './database.js';
import { insertKey } from './keys.js';
import { insertToken } from './tokens.js';
import { writeTransaction } from './write-lock.js';

function insertActor(db: Db, a: Actor): void {
  prep(
    db,
    `INSERT INTO actors (tenant_id, id, kind, roles, manager_id, cert_subject, display_name, chat_user_id,
       collab_user_id, created_at)
     VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
  ).run(...actorValues(a));
}

export class SqliteTenants implements TenantRepo {
  constructor(private readonly db: Db) {}

  async create(input: NewTenant): Promise<void> {
    const tx = this.db.transaction(() => {
      prep(this.db, 'INSERT INTO tenants (id, created_at) VALUES (?, ?)').run(
        input.tenant.id,
        input.tenant.createdAt,
      );
      insertKey(this.db, { ...input.signingKey, status: 'active', retiredAt: null });
      if (input.admin) insertActor(this.db, input.admin);
      if (input.adminToken) insertToken(this.db, input.adminToken);
    });
    try {
      await writeTransaction(this.db, tx);
    } catch (err) {
      throw storeError(err, `tenant ${input.tenant.id}`);
    }
  }

  async get(id: string): Promise<Tenant | undefined> {
    const r = prep(this.db, 'SELECT id, created_at FROM tenants WHERE id = ?').get(id) as
      { id: string; created_at: string } | undefined;
    return r && { id: r.id, createdAt: r.created_at };
  }

  async list(): Promise<Tenant[]> {
    const rows = prep(this.db, 'SELECT id, created_at FROM tenants ORDER BY id').all() as {
      id: string;
      created_at: string;
    }[];
    return rows.map((r) => ({ id: r.id, createdAt: r.created_at }));
  }

  async approvalTier(id: string): Promise<number | undefined> {
    const r = prep(this.db, 'SELECT approval_tier FROM tenants WHERE id = ?').get(id) as
      { approval_tier: number | bigint } | undefined;
    return r && Number(r.approval_tier);
  }
}

export class SqliteActors implements ActorRepo {
  constructor(private readonly db: Db) {}

  async add(actor: Actor): Promise<void> {
    try {
      await writeTransaction(this.db, () => insertActor(this.db, actor));
    } catch (err) {
      throw storeError(err, actorCollision(actor, collidedIndex(err)));
    }
  }

  async get(tenantId: string, id: string): Promise<Actor | undefined> {
    const r = prep(this.db, 'SELECT * FROM actors WHERE tenant_id = ? AND id = ?').get(tenantId, id) as
      ActorRow | undefined;
    return r && toActor(r);
  }

  async list(tenantId: string): Promise<Actor[]> {
    const rows = prep(this.db, 'SELECT * FROM actors WHERE tenant_id = ? ORDER BY id').all(
      tenantId,
    ) as ActorRow[];
    return rows.map(toActor);
  }

  async findByCertSubject(subject: string): Promise<Actor | undefined> {
    const r = prep(this.db, 'SELECT * FROM actors WHERE cert_subject = ?').get(subject) as
      ActorRow | undefined;
    return r && toActor(r);
  }
}

/** The unique index an insert hit, as SQLite's message names its columns. */
function collidedIndex(err: unknown): Parameters<typeof actorCollision>[1] {
  const code = (err as { code?: string }).code ?? '';
  if (!code.startsWith('SQLITE_CONSTRAINT_UNIQUE')) return undefined;
  const message = (err as Error).message ?? '';
  return message.includes('chat_user_id')
    ? 'chat_user'
    : message.includes('collab_user_id')
      ? 'collab_user'
      : 'key';
}
