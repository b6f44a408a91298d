import type { PolicyRecord, PolicyRepo } from '../registry-ports.js';
import { bumpRegistry } from './capabilities.js';
import { pgStoreError, type PgDb } from './database.js';
import { lockTenant } from './locks.js';

interface PolicyRow {
  tenant_id: string;
  version: string;
  text: string;
  updated_at: string;
}

function toRecord(r: PolicyRow): PolicyRecord {
  return { tenantId: r.tenant_id, version: Number(r.version), text: r.text, updatedAt: r.updated_at };
}

const SELECT = 'SELECT * FROM policies WHERE tenant_id = $1';

export class PgPolicies implements PolicyRepo {
  constructor(private readonly db: PgDb) {}

  async get(tenantId: string): Promise<PolicyRecord | undefined> {
    const [r] = await this.db.query<PolicyRow>(SELECT, [tenantId]);
    return r && toRecord(r);
  }

  async set(tenantId: string, text: string, at: string): Promise<PolicyRecord> {
    try {
      return await this.db.tx(async (tx) => {
        // Two replicas setting the policy at once must not both read version n and write n + 1.
        await lockTenant(tx, tenantId);
        const [found] = await tx.query<PolicyRow>(SELECT, [tenantId]);
        if (found !== undefined && found.text === text) return toRecord(found);
        const record: PolicyRecord = {
          tenantId,
          version: (found === undefined ? 0 : Number(found.version)) + 1,
          text,
          updatedAt: at,
        };
        await tx.query(
          `INSERT INTO policies (tenant_id, version, text, updated_at) VALUES ($1, $2, $3, $4)
           ON CONFLICT (tenant_id) DO UPDATE SET version = excluded.version, text = excluded.text,
             updated_at = excluded.updated_at`,
          [tenantId, record.version, text, at],
        );
        await bumpRegistry(tx, tenantId);
        return record;
      });
    } catch (err) {
      throw pgStoreError(err, `the policy of tenant ${tenantId}`);
    }
  }
}
