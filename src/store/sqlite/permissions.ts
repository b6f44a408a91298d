import type Database from 'better-sqlite3';
import type { Permission, PermissionRepo, PutResult } from '../registry-ports.js';
import { toPermission, type PermissionRow } from '../rows/permission.js';
import { storeError, type Db } from './database.js';
import { writeTransaction } from './write-lock.js';

export class SqlitePermissions implements PermissionRepo {
  private readonly insert: Database.Statement<[string, string, string, string]>;
  private readonly remove: Database.Statement<[string, string, string]>;
  private readonly select: Database.Statement<[{ tenant: string; actor: string | null }], PermissionRow>;

  constructor(private readonly db: Db) {
    // A second grant keeps the first grant's time: it is when the standing permission began.
    this.insert = db.prepare<[string, string, string, string]>(
      `INSERT INTO permissions (tenant_id, actor_id, capability, granted_at) VALUES (?, ?, ?, ?)
       ON CONFLICT (tenant_id, actor_id, capability) DO NOTHING`,
    );
    this.remove = db.prepare<[string, string, string]>(
      'DELETE FROM permissions WHERE tenant_id = ? AND actor_id = ? AND capability = ?',
    );
    this.select = db.prepare<[{ tenant: string; actor: string | null }], PermissionRow>(
      `SELECT * FROM permissions WHERE tenant_id = @tenant AND (@actor IS NULL OR actor_id = @actor)
       ORDER BY actor_id, capability`,
    );
  }

  async grant(p: Permission): Promise<PutResult> {
    try {
      const { changes } = await writeTransaction(this.db, () =>
        this.insert.run(p.tenantId, p.actorId, p.capability, p.grantedAt),
      );
      return changes === 1 ? 'created' : 'unchanged';
    } catch (err) {
      throw storeError(err, `permission of ${p.actorId} on ${p.capability} in tenant ${p.tenantId}`);
    }
  }

  async revoke(tenantId: string, actorId: string, capability: string): Promise<boolean> {
    return (
      (await writeTransaction(this.db, () => this.remove.run(tenantId, actorId, capability))).changes > 0
    );
  }

  async list(tenantId: string, actorId?: string): Promise<Permission[]> {
    return this.select.all({ tenant: tenantId, actor: actorId ?? null }).map(toPermission);
  }
}
