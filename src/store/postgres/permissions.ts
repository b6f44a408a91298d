import type { Permission, PermissionRepo, PutResult } from '../registry-ports.js';
import { toPermission, type PermissionRow } from '../rows/permission.js';
import { pgStoreError, type PgDb } from './database.js';

export class PgPermissions implements PermissionRepo {
  constructor(private readonly db: PgDb) {}

  async grant(p: Permission): Promise<PutResult> {
    try {
      // A second grant keeps the first grant's time: it is when the standing permission began.
      const rows = await this.db.query(
        `INSERT INTO permissions (tenant_id, actor_id, capability, granted_at) VALUES ($1, $2, $3, $4)
         ON CONFLICT (tenant_id, actor_id, capability) DO NOTHING RETURNING 1`,
        [p.tenantId, p.actorId, p.capability, p.grantedAt],
      );
      return rows.length === 1 ? 'created' : 'unchanged';
    } catch (err) {
      throw pgStoreError(err, `permission of ${p.actorId} on ${p.capability} in tenant ${p.tenantId}`);
    }
  }

  async revoke(tenantId: string, actorId: string, capability: string): Promise<boolean> {
    try {
      const rows = await this.db.query(
        'DELETE FROM permissions WHERE tenant_id = $1 AND actor_id = $2 AND capability = $3 RETURNING 1',
        [tenantId, actorId, capability],
      );
      return rows.length > 0;
    } catch (err) {
      throw pgStoreError(err, `permission of ${actorId} on ${capability} in tenant ${tenantId}`);
    }
  }

  async list(tenantId: string, actorId?: string): Promise<Permission[]> {
    const rows = await this.db.query<PermissionRow>(
      `SELECT * FROM permissions WHERE tenant_id = $1 AND ($2::text IS NULL OR actor_id = $2)
       ORDER BY actor_id COLLATE "C", capability COLLATE "C"`,
      [tenantId, actorId ?? null],
    );
    return rows.map(toPermission);
  }
}
