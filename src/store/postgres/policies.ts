import {
  setPolicy,
  type PolicyAuthorship,
  type PolicyOps,
  type PolicyVersion,
  type PolicyVersionSummary,
} from '../../core/policy-version.js';
import { runAsync, type Async } from '../../core/use-case.js';
import type { PolicyRecord, PolicyRepo } from '../registry-ports.js';
import {
  INSERT_VERSION_COLUMNS,
  toPolicyRecord,
  toPolicyVersion,
  toPolicyVersionSummary,
  VERSION_SUMMARY_COLUMNS,
  versionValues,
  type PolicyRow,
  type PolicyVersionRow,
} from '../rows/policy.js';
import { bumpRegistry } from './capabilities.js';
import { pgStoreError, type PgDb, type PgTx } from './database.js';
import { lockTenant } from './locks.js';

const SELECT = 'SELECT * FROM policies WHERE tenant_id = $1';

/** The reads and writes of a policy change in one tenant transaction (core/policy-version.ts decides). */
export function policyOpsIn(tx: PgTx): Async<PolicyOps> {
  return {
    policy: async (tenantId) => {
      const [r] = await tx.query<PolicyRow>(SELECT, [tenantId]);
      return r && toPolicyRecord(r);
    },
    insertPolicy: async (r) =>
      (
        await tx.query(
          `INSERT INTO policies (tenant_id, version, text, updated_at) VALUES ($1, $2, $3, $4)
           ON CONFLICT (tenant_id) DO NOTHING RETURNING 1`,
          [r.tenantId, r.version, r.text, r.updatedAt],
        )
      ).length,
    updatePolicy: async (r, expected) =>
      (
        await tx.query(
          `UPDATE policies SET version = $1, text = $2, updated_at = $3 WHERE tenant_id = $4 AND version = $5
           RETURNING 1`,
          [r.version, r.text, r.updatedAt, r.tenantId, expected],
        )
      ).length,
    appendVersion: async (v) =>
      (
        await tx.query(
          `INSERT INTO policy_versions (${INSERT_VERSION_COLUMNS}) VALUES ($1, $2, $3, $4, $5, $6, $7)
           ON CONFLICT (tenant_id, version) DO NOTHING RETURNING 1`,
          versionValues(v),
        )
      ).length,
    bumpRegistry: (tenantId) => bumpRegistry(tx, tenantId),
  };
}

export class PgPolicies implements PolicyRepo {
  constructor(private readonly db: PgDb) {}

  async get(tenantId: string): Promise<PolicyRecord | undefined> {
    const [r] = await this.db.query<PolicyRow>(SELECT, [tenantId]);
    return r && toPolicyRecord(r);
  }

  async set(tenantId: string, text: string, at: string, by?: PolicyAuthorship): Promise<PolicyRecord> {
    try {
      return await this.db.tx(async (tx) => {
        // Two replicas setting the policy at once must not both read version n and write n + 1.
        await lockTenant(tx, tenantId);
        return runAsync(setPolicy(tenantId, text, at, by), policyOpsIn(tx));
      });
    } catch (err) {
      throw pgStoreError(err, `the policy of tenant ${tenantId}`);
    }
  }

  async history(tenantId: string, opts: { limit: number; before?: number }): Promise<PolicyVersionSummary[]> {
    const rows = await this.db.query<PolicyVersionRow>(
      `SELECT ${VERSION_SUMMARY_COLUMNS} FROM policy_versions
       WHERE tenant_id = $1 AND version < $2 ORDER BY version DESC LIMIT $3`,
      [tenantId, opts.before ?? Number.MAX_SAFE_INTEGER, opts.limit],
    );
    return rows.map(toPolicyVersionSummary);
  }

  async version(tenantId: string, version: number): Promise<PolicyVersion | undefined> {
    const [r] = await this.db.query<PolicyVersionRow>(
      'SELECT * FROM policy_versions WHERE tenant_id = $1 AND version = $2',
      [tenantId, version],
    );
    return r && toPolicyVersion(r);
  }
}
