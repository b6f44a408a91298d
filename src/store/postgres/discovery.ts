import type { Capability } from '../../core/capability.js';
import type { Discovery } from '../query-ports.js';
import type { PgDb } from './database.js';
import { toCapability, type PgCapabilityRow } from './registry-rows.js';

// The same test the decision applies at step 6: a standing permission, or an entitlement
// that is neither revoked nor expired. $1 tenant, $2 actor, $3 now.
const HOLDS = `(EXISTS (SELECT 1 FROM permissions p
    WHERE p.tenant_id = c.tenant_id AND p.actor_id = $2 AND p.capability = c.name)
  OR EXISTS (SELECT 1 FROM entitlements e
    WHERE e.tenant_id = c.tenant_id AND e.actor_id = $2 AND e.capability = c.name
      AND e.revoked_at IS NULL AND e.expires_at COLLATE "C" > $3))`;

export class PgDiscovery implements Discovery {
  constructor(private readonly db: PgDb) {}

  async held(tenantId: string, actorId: string, now: Date): Promise<Capability[]> {
    const rows = await this.db.query<PgCapabilityRow>(
      `SELECT c.* FROM capabilities c WHERE c.tenant_id = $1 AND ${HOLDS} ORDER BY c.name COLLATE "C"`,
      [tenantId, actorId, now.toISOString()],
    );
    return rows.map(toCapability);
  }

  async catalogue(tenantId: string, actorId: string, now: Date): Promise<Capability[]> {
    const rows = await this.db.query<PgCapabilityRow>(
      `SELECT c.* FROM capabilities c WHERE c.tenant_id = $1 AND c.requestable = 1 AND NOT ${HOLDS}
       ORDER BY c.name COLLATE "C"`,
      [tenantId, actorId, now.toISOString()],
    );
    return rows.map(toCapability);
  }
}
