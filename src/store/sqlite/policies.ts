import { setPolicy, type PolicyOps } from '../../core/policy-version.js';
import { runSync } from '../../core/use-case.js';
import type { PolicyRecord, PolicyRepo } from '../registry-ports.js';
import { toPolicyRecord, type PolicyRow } from '../rows/policy.js';
import { storeError, type Db } from './database.js';
import { writeTransaction } from './write-lock.js';

/** The reads and writes of a policy change (core/policy-version.ts decides). */
export function policyOps(db: Db): PolicyOps {
  const select = db.prepare<[string], PolicyRow>('SELECT * FROM policies WHERE tenant_id = ?');
  const insert = db.prepare(
    'INSERT INTO policies (tenant_id, version, text, updated_at) VALUES (?, ?, ?, ?) ON CONFLICT (tenant_id) DO NOTHING',
  );
  const update = db.prepare(
    'UPDATE policies SET version = ?, text = ?, updated_at = ? WHERE tenant_id = ? AND version = ?',
  );
  // The daemon caches the compiled policy per tenant under this number.
  const bump = db.prepare('UPDATE tenants SET registry_version = registry_version + 1 WHERE id = ?');
  return {
    policy: (tenantId) => {
      const r = select.get(tenantId);
      return r && toPolicyRecord(r);
    },
    insertPolicy: (r) => insert.run(r.tenantId, r.version, r.text, r.updatedAt).changes,
    updatePolicy: (r, expected) => update.run(r.version, r.text, r.updatedAt, r.tenantId, expected).changes,
    bumpRegistry: (tenantId) => void bump.run(tenantId),
  };
}

export class SqlitePolicies implements PolicyRepo {
  private readonly ops: PolicyOps;

  constructor(private readonly db: Db) {
    this.ops = policyOps(db);
  }

  async get(tenantId: string): Promise<PolicyRecord | undefined> {
    return this.ops.policy(tenantId);
  }

  async set(tenantId: string, text: string, at: string): Promise<PolicyRecord> {
    const tx = this.db.transaction(() => runSync(setPolicy(tenantId, text, at), this.ops));
    try {
      return await writeTransaction(this.db, tx);
    } catch (err) {
      throw storeError(err, `the policy of tenant ${tenantId}`);
    }
  }
}
