import {
  setPolicy,
  type PolicyAuthorship,
  type PolicyOps,
  type PolicyVersion,
  type PolicyVersionSummary,
} from '../../core/policy-version.js';
import { runSync } from '../../core/use-case.js';
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
  const append = db.prepare(
    `INSERT INTO policy_versions (${INSERT_VERSION_COLUMNS}) VALUES (?, ?, ?, ?, ?, ?, ?)
     ON CONFLICT (tenant_id, version) DO NOTHING`,
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
    appendVersion: (v) => append.run(...versionValues(v)).changes,
    bumpRegistry: (tenantId) => void bump.run(tenantId),
  };
}

export class SqlitePolicies implements PolicyRepo {
  private readonly ops: PolicyOps;
  private readonly historyPage;
  private readonly oneVersion;

  constructor(private readonly db: Db) {
    this.ops = policyOps(db);
    this.historyPage = db.prepare<[string, number, number], PolicyVersionRow>(
      `SELECT ${VERSION_SUMMARY_COLUMNS} FROM policy_versions
       WHERE tenant_id = ? AND version < ? ORDER BY version DESC LIMIT ?`,
    );
    this.oneVersion = db.prepare<[string, number], PolicyVersionRow>(
      'SELECT * FROM policy_versions WHERE tenant_id = ? AND version = ?',
    );
  }

  async get(tenantId: string): Promise<PolicyRecord | undefined> {
    return this.ops.policy(tenantId);
  }

  async set(tenantId: string, text: string, at: string, by?: PolicyAuthorship): Promise<PolicyRecord> {
    const tx = this.db.transaction(() => runSync(setPolicy(tenantId, text, at, by), this.ops));
    try {
      return await writeTransaction(this.db, tx);
    } catch (err) {
      throw storeError(err, `the policy of tenant ${tenantId}`);
    }
  }

  async history(tenantId: string, opts: { limit: number; before?: number }): Promise<PolicyVersionSummary[]> {
    return this.historyPage
      .all(tenantId, opts.before ?? Number.MAX_SAFE_INTEGER, opts.limit)
      .map(toPolicyVersionSummary);
  }

  async version(tenantId: string, version: number): Promise<PolicyVersion | undefined> {
    const r = this.oneVersion.get(tenantId, version);
    return r && toPolicyVersion(r);
  }
}
