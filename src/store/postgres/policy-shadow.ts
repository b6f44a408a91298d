import {
  clearShadow,
  recordShadow,
  setShadow,
  type ShadowBatch,
  type ShadowOps,
  type ShadowRecord,
} from '../../core/policy-shadow.js';
import { runAsync, type Async } from '../../core/use-case.js';
import type { PolicyDifference } from '../../policy/policy-difference.js';
import {
  differenceValues,
  toDifference,
  toShadowRecord,
  type ShadowDifferenceRow,
  type ShadowRow,
} from '../rows/policy-shadow.js';
import type { PolicyShadowRepo, ShadowProbe } from '../shadow-ports.js';
import { pgStoreError, type PgDb, type PgTx } from './database.js';

/** Rows per INSERT: 8 parameters each, far under PostgreSQL's 65 535. */
const INSERT_ROWS = 500;

/** The reads and writes of a shadow policy in one transaction (core/policy-shadow.ts decides). */
export function shadowOpsIn(tx: PgTx): Async<ShadowOps> {
  return {
    shadow: async (tenantId) => {
      const [r] = await tx.query<ShadowRow>('SELECT * FROM policy_shadows WHERE tenant_id = $1', [tenantId]);
      return r && toShadowRecord(r);
    },
    putShadow: async (r: ShadowRecord) =>
      void (await tx.query(
        `INSERT INTO policy_shadows (tenant_id, candidate_id, text, source, set_at, compared, dropped, uncompiled,
           failure, failure_registry_version)
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10)
         ON CONFLICT (tenant_id) DO UPDATE SET candidate_id = excluded.candidate_id, text = excluded.text,
           source = excluded.source, set_at = excluded.set_at, compared = excluded.compared,
           dropped = excluded.dropped, uncompiled = excluded.uncompiled, failure = excluded.failure,
           failure_registry_version = excluded.failure_registry_version`,
        [
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
        ],
      )),
    deleteShadow: async (tenantId) =>
      (await tx.query('DELETE FROM policy_shadows WHERE tenant_id = $1 RETURNING 1', [tenantId])).length,
    forgetDifferences: async (tenantId) =>
      void (await tx.query('DELETE FROM policy_shadow_differences WHERE tenant_id = $1', [tenantId])),
    addTally: async (b: ShadowBatch) =>
      (
        await tx.query(
          `UPDATE policy_shadows SET compared = compared + $1, dropped = dropped + $2, uncompiled = uncompiled + $3,
             failure = CASE WHEN $4 THEN $5 ELSE failure END,
             failure_registry_version = CASE WHEN $4 THEN $6::bigint ELSE failure_registry_version END
           WHERE tenant_id = $7 AND candidate_id = $8 RETURNING 1`,
          [
            b.compared,
            b.dropped,
            b.uncompiled,
            b.failure !== undefined,
            b.failure?.message ?? null,
            b.failure?.registryVersion ?? null,
            b.tenantId,
            b.candidateId,
          ],
        )
      ).length,
    insertDifferences: async (b) => {
      for (let i = 0; i < b.differences.length; i += INSERT_ROWS) {
        const rows = b.differences.slice(i, i + INSERT_ROWS);
        const params: unknown[] = [];
        const tuples = rows.map((d) => {
          const values = [b.tenantId, b.candidateId, ...differenceValues(d)];
          const at = params.length;
          params.push(...values);
          return `(${values.map((_, k) => `$${at + k + 1}`).join(', ')})`;
        });
        await tx.query(
          `INSERT INTO policy_shadow_differences (tenant_id, candidate_id, seq, intent_id, decided_at, inputs,
             current, candidate)
           VALUES ${tuples.join(', ')} ON CONFLICT DO NOTHING`,
          params,
        );
      }
    },
  };
}

export class PgPolicyShadows implements PolicyShadowRepo {
  constructor(private readonly db: PgDb) {}

  async get(tenantId: string): Promise<ShadowRecord | undefined> {
    const [r] = await this.db.query<ShadowRow>('SELECT * FROM policy_shadows WHERE tenant_id = $1', [
      tenantId,
    ]);
    return r && toShadowRecord(r);
  }

  async set(input: Parameters<PolicyShadowRepo['set']>[0]): Promise<ShadowRecord> {
    return this.write((tx) => runAsync(setShadow(input), shadowOpsIn(tx)), input.tenantId);
  }

  async clear(tenantId: string): Promise<boolean> {
    return this.write((tx) => runAsync(clearShadow(tenantId), shadowOpsIn(tx)), tenantId);
  }

  async record(batch: ShadowBatch): Promise<boolean> {
    return this.write((tx) => runAsync(recordShadow(batch), shadowOpsIn(tx)), batch.tenantId);
  }

  async probe(tenantId: string): Promise<ShadowProbe> {
    const [r] = await this.db.query<{ candidate_id: string | null; registry_version: string | number }>(
      `SELECT (SELECT candidate_id FROM policy_shadows WHERE tenant_id = $1) AS candidate_id,
         COALESCE((SELECT registry_version FROM tenants WHERE id = $1), 0) AS registry_version`,
      [tenantId],
    );
    return { candidateId: r?.candidate_id ?? null, registryVersion: Number(r?.registry_version ?? 0) };
  }

  async differences(
    tenantId: string,
    candidateId: string,
  ): Promise<{ differences: PolicyDifference[]; unreadable: number }> {
    const rows = await this.db.query<ShadowDifferenceRow>(
      `SELECT seq, intent_id, decided_at, inputs, current, candidate FROM policy_shadow_differences
       WHERE tenant_id = $1 AND candidate_id = $2 ORDER BY seq`,
      [tenantId, candidateId],
    );
    const differences: PolicyDifference[] = [];
    let unreadable = 0;
    for (const r of rows) {
      const d = toDifference(r);
      if (d) differences.push(d);
      else unreadable += 1;
    }
    return { differences, unreadable };
  }

  private async write<T>(work: (tx: PgTx) => Promise<T>, tenantId: string): Promise<T> {
    try {
      // The row lock of the UPDATE/DELETE orders a set or clear against a daemon's batch: a
      // batch never lands half in the old candidate's report and half in the new one's.
      return await this.db.tx(work);
    } catch (err) {
      throw pgStoreError(err, `the shadow policy of tenant ${tenantId}`);
    }
  }
}
