import {
  clearShadow,
  recordShadow,
  setShadow,
  type ShadowBatch,
  type ShadowOps,
  type ShadowRecord,
} from '../../core/policy-shadow.js';
import { runSync } from '../../core/use-case.js';
import type { PolicyDifference } from '../../policy/policy-difference.js';
import {
  differenceValues,
  toDifference,
  toShadowRecord,
  type ShadowDifferenceRow,
  type ShadowRow,
} from '../rows/policy-shadow.js';
import type { PolicyShadowRepo, ShadowProbe } from '../shadow-ports.js';
import { storeError, type Db } from './database.js';
import { writeTransaction } from './write-lock.js';

/** The reads and writes of a shadow policy (core/policy-shadow.ts decides). */
export function shadowOps(db: Db): ShadowOps {
  const select = db.prepare<[string], ShadowRow>('SELECT * FROM policy_shadows WHERE tenant_id = ?');
  const put = db.prepare(
    `INSERT INTO policy_shadows (tenant_id, candidate_id, text, source, set_at, compared, dropped, uncompiled,
       failure, failure_registry_version)
     VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
     ON CONFLICT (tenant_id) DO UPDATE SET candidate_id = excluded.candidate_id, text = excluded.text,
       source = excluded.source, set_at = excluded.set_at, compared = excluded.compared,
       dropped = excluded.dropped, uncompiled = excluded.uncompiled, failure = excluded.failure,
       failure_registry_version = excluded.failure_registry_version`,
  );
  const remove = db.prepare('DELETE FROM policy_shadows WHERE tenant_id = ?');
  const forget = db.prepare('DELETE FROM policy_shadow_differences WHERE tenant_id = ?');
  const tally = db.prepare(
    `UPDATE policy_shadows SET compared = compared + ?, dropped = dropped + ?, uncompiled = uncompiled + ?,
       failure = CASE WHEN ? THEN ? ELSE failure END,
       failure_registry_version = CASE WHEN ? THEN ? ELSE failure_registry_version END
     WHERE tenant_id = ? AND candidate_id = ?`,
  );
  const insert = db.prepare(
    `INSERT INTO policy_shadow_differences (tenant_id, candidate_id, seq, intent_id, decided_at, inputs, current,
       candidate)
     VALUES (?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT DO NOTHING`,
  );
  return {
    shadow: (tenantId) => {
      const r = select.get(tenantId);
      return r && toShadowRecord(r);
    },
    putShadow: (r: ShadowRecord) =>
      void put.run(
        r.tenantId,
        r.candidateId,
        r.text,
        r.source,
        r.setAt,
        r.compared,
        r.dropped,
        r.uncompiled,
        r.failure,
        r.failureRegistryVersion,
      ),
    deleteShadow: (tenantId) => remove.run(tenantId).changes,
    forgetDifferences: (tenantId) => void forget.run(tenantId),
    addTally: (b: ShadowBatch) => {
      const told = b.failure !== undefined ? 1 : 0;
      return tally.run(
        b.compared,
        b.dropped,
        b.uncompiled,
        told,
        b.failure?.message ?? null,
        told,
        b.failure?.registryVersion ?? null,
        b.tenantId,
        b.candidateId,
      ).changes;
    },
    insertDifferences: (b) => {
      for (const d of b.differences) insert.run(b.tenantId, b.candidateId, ...differenceValues(d));
    },
  };
}

export class SqlitePolicyShadows implements PolicyShadowRepo {
  private readonly ops: ShadowOps;
  private readonly probeStmt;
  private readonly differenceRows;

  constructor(private readonly db: Db) {
    this.ops = shadowOps(db);
    this.probeStmt = db.prepare<[string, string], { candidate_id: string | null; registry_version: number }>(
      `SELECT (SELECT candidate_id FROM policy_shadows WHERE tenant_id = ?) AS candidate_id,
         COALESCE((SELECT registry_version FROM tenants WHERE id = ?), 0) AS registry_version`,
    );
    this.differenceRows = db.prepare<[string, string], ShadowDifferenceRow>(
      `SELECT seq, intent_id, decided_at, inputs, current, candidate FROM policy_shadow_differences
       WHERE tenant_id = ? AND candidate_id = ? ORDER BY seq`,
    );
  }

  async get(tenantId: string): Promise<ShadowRecord | undefined> {
    return this.ops.shadow(tenantId);
  }

  async set(input: Parameters<PolicyShadowRepo['set']>[0]): Promise<ShadowRecord> {
    return this.write(
      () => runSync(setShadow(input), this.ops),
      `the shadow policy of tenant ${input.tenantId}`,
    );
  }

  async clear(tenantId: string): Promise<boolean> {
    return this.write(
      () => runSync(clearShadow(tenantId), this.ops),
      `the shadow policy of tenant ${tenantId}`,
    );
  }

  async record(batch: ShadowBatch): Promise<boolean> {
    return this.write(
      () => runSync(recordShadow(batch), this.ops),
      `the shadow policy of tenant ${batch.tenantId}`,
    );
  }

  async probe(tenantId: string): Promise<ShadowProbe> {
    const r = this.probeStmt.get(tenantId, tenantId)!;
    return { candidateId: r.candidate_id, registryVersion: Number(r.registry_version) };
  }

  async differences(
    tenantId: string,
    candidateId: string,
  ): Promise<{ differences: PolicyDifference[]; unreadable: number }> {
    const differences: PolicyDifference[] = [];
    let unreadable = 0;
    for (const r of this.differenceRows.iterate(tenantId, candidateId)) {
      const d = toDifference(r);
      if (d) differences.push(d);
      else unreadable += 1;
    }
    return { differences, unreadable };
  }

  private async write<T>(work: () => T, what: string): Promise<T> {
    try {
      return await writeTransaction(this.db, this.db.transaction(work));
    } catch (err) {
      throw storeError(err, what);
    }
  }
}
