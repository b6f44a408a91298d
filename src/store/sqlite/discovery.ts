import type Database from 'better-sqlite3';
import type { Capability } from '../../core/capability.js';
import type { Discovery } from '../query-ports.js';
import { toCapability, type CapabilityRow } from './capabilities.js';
import type { Db } from './database.js';

interface Params {
  tenant: string;
  actor: string;
  now: string;
}

// The same test the decision applies at step 6: a standing permission, or an entitlement
// that is neither revoked nor expired.
const HOLDS = `(EXISTS (SELECT 1 FROM permissions p
    WHERE p.tenant_id = c.tenant_id AND p.actor_id = @actor AND p.capability = c.name)
  OR EXISTS (SELECT 1 FROM entitlements e
    WHERE e.tenant_id = c.tenant_id AND e.actor_id = @actor AND e.capability = c.name
      AND e.revoked_at IS NULL AND e.expires_at > @now))`;

export class SqliteDiscovery implements Discovery {
  private readonly heldBy: Database.Statement<[Params], CapabilityRow>;
  private readonly requestableBy: Database.Statement<[Params], CapabilityRow>;

  constructor(db: Db) {
    this.heldBy = db
      .prepare<[Params], CapabilityRow>(
        `SELECT c.* FROM capabilities c WHERE c.tenant_id = @tenant AND ${HOLDS} ORDER BY c.name`,
      )
      .safeIntegers(true);
    this.requestableBy = db
      .prepare<[Params], CapabilityRow>(
        `SELECT c.* FROM capabilities c WHERE c.tenant_id = @tenant AND c.requestable = 1 AND NOT ${HOLDS}
         ORDER BY c.name`,
      )
      .safeIntegers(true);
  }

  async held(tenantId: string, actorId: string, now: Date): Promise<Capability[]> {
    return this.heldBy.all({ tenant: tenantId, actor: actorId, now: now.toISOString() }).map(toCapability);
  }

  async catalogue(tenantId: string, actorId: string, now: Date): Promise<Capability[]> {
    return this.requestableBy
      .all({ tenant: tenantId, actor: actorId, now: now.toISOString() })
      .map(toCapability);
  }
}
