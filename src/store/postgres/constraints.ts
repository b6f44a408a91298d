import type { Actor } from '../../core/actor.js';
import type { ExecutionPlan } from '../../core/constraints.js';
import {
  constraintsInstallation,
  type ConstraintsInstallationOps,
  type RegisteredNames,
} from '../../core/constraints-installation.js';
import { readsFullLedger, readsTask } from '../../core/readers.js';
import { runAsync, type Async } from '../../core/use-case.js';
import type { AdmissionLedger, ConstraintProfile, ExecutionConstraints } from '../query-ports.js';
import {
  constraintProfile,
  fullLedger,
  toRootPlanState,
  type AdmissionRow,
  type RootRow,
  type RootStateRow,
} from '../rows/constraints.js';
import { pgStoreError, type PgDb, type PgTx } from './database.js';
import { lockTenant } from './locks.js';
import type { PgTaskSummaryRow } from './registry-rows.js';
import { TASK_SUMMARY_ONE, toTaskSummary } from './task-reads.js';

type Query = PgDb | PgTx;

const ROOT = `SELECT id, sponsor_id, constraints, constraints_installed_at, constraints_installed_by
  FROM tasks WHERE tenant_id = $1 AND id = $2`;

/** What core/constraints-installation.ts asks for, on the caller's transaction. */
export function constraintsInstallationOpsIn(tx: PgTx): Async<ConstraintsInstallationOps> {
  return {
    task: async (tenantId, id) => {
      const [row] = await tx.query<PgTaskSummaryRow>(TASK_SUMMARY_ONE, [tenantId, id]);
      return row && toTaskSummary(row);
    },
    rootState: async (tenantId, rootId) => {
      const [row] = await tx.query<RootStateRow>(
        `SELECT constraints, constraints_installed_at, constraints_installed_by,
           EXISTS (SELECT 1 FROM admissions a WHERE a.tenant_id = t.tenant_id AND a.root_id = t.id) AS used
         FROM tasks t WHERE t.tenant_id = $1 AND t.id = $2`,
        [tenantId, rootId],
      );
      return toRootPlanState(row!);
    },
    // one round trip for every name the plan binds
    registered: async (tenantId, capabilities, actors) => {
      const [row] = await tx.query<RegisteredNames>(
        `SELECT ARRAY(SELECT name FROM capabilities WHERE tenant_id = $1 AND name = ANY($2::text[])) AS capabilities,
           ARRAY(SELECT id FROM actors WHERE tenant_id = $1 AND id = ANY($3::text[])) AS actors`,
        [tenantId, capabilities, actors],
      );
      return row!;
    },
    installPlan: async (tenantId, taskId, plan, at, by) =>
      (
        await tx.query(
          `UPDATE tasks SET constraints = $1, constraints_installed_at = $2, constraints_installed_by = $3,
             status = 'active'
           WHERE tenant_id = $4 AND id = $5 AND constraints IS NULL AND status = 'draft' AND parent_id IS NULL
           RETURNING 1`,
          [plan, at, by, tenantId, taskId],
        )
      ).length,
  };
}

export class PgConstraints implements ExecutionConstraints {
  constructor(private readonly db: PgDb) {}

  async profile(viewer: Actor, taskId: string): Promise<ConstraintProfile | undefined> {
    // One transaction: the task, its root and the ledger are one state.
    return this.db.tx(async (tx) => {
      const [row] = await tx.query<PgTaskSummaryRow>(TASK_SUMMARY_ONE, [viewer.tenantId, taskId]);
      const task = row && toTaskSummary(row);
      if (!task || !readsTask(viewer, task)) return undefined;
      const [root] = await tx.query<RootRow>(ROOT, [viewer.tenantId, task.rootId]);
      if (!root) return undefined;
      return describe(tx, viewer, task.id, root);
    });
  }

  async install(installer: Actor, taskId: string, plan: ExecutionPlan, at: Date): Promise<ConstraintProfile> {
    const tenant = installer.tenantId;
    try {
      return await this.db.tx(async (tx) => {
        // Admissions are written under this lock by every replica: "no admissions yet" stays true.
        await lockTenant(tx, tenant);
        await runAsync(
          constraintsInstallation(installer, taskId, plan, at),
          constraintsInstallationOpsIn(tx),
        );
        const [installed] = await tx.query<RootRow>(ROOT, [tenant, taskId]);
        return describe(tx, installer, taskId, installed!);
      });
    } catch (err) {
      throw pgStoreError(err, `execution constraints of task ${taskId}`);
    }
  }
}

async function describe(q: Query, viewer: Actor, taskId: string, root: RootRow): Promise<ConstraintProfile> {
  let ledger: AdmissionLedger;
  if (readsFullLedger(viewer, root.sponsor_id)) {
    const rows = await q.query<AdmissionRow>(
      `SELECT id, root_id, task_id, intent_id, actor_id, capability, amount_micros, created_at
       FROM admissions WHERE tenant_id = $1 AND root_id = $2 ORDER BY created_at COLLATE "C", id COLLATE "C"`,
      [viewer.tenantId, root.id],
    );
    ledger = fullLedger(rows);
  } else {
    const own = await q.query<{ id: string }>(
      `SELECT id FROM admissions WHERE tenant_id = $1 AND root_id = $2 AND actor_id = $3
       ORDER BY created_at COLLATE "C", id COLLATE "C"`,
      [viewer.tenantId, root.id, viewer.id],
    );
    ledger = { visibility: 'own', reservationIds: own.map((r) => r.id) };
  }
  return constraintProfile(taskId, root, ledger);
}
