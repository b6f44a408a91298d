import type { Actor } from '../../core/actor.js';
import type { ExecutionPlan } from '../../core/constraints.js';
import { SvcError } from '../../core/errors.js';
import { readsFullLedger, readsTask } from '../../core/readers.js';
import type { AdmissionLedger, ConstraintProfile, ExecutionConstraints } from '../query-ports.js';
import {
  checkInstallable,
  checkRootUnused,
  constraintProfile,
  fullLedger,
  notFound,
  type AdmissionRow,
  type RootRow,
} from '../rows/constraints.js';
import { pgStoreError, type PgDb, type PgTx } from './database.js';
import { lockTenant } from './locks.js';
import type { PgTaskSummaryRow } from './registry-rows.js';
import { TASK_SUMMARY_ONE, toTaskSummary } from './task-reads.js';

type Query = PgDb | PgTx;

const ROOT = `SELECT id, sponsor_id, constraints, constraints_installed_at, constraints_installed_by
  FROM tasks WHERE tenant_id = $1 AND id = $2`;

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
        const [row] = await tx.query<PgTaskSummaryRow>(TASK_SUMMARY_ONE, [tenant, taskId]);
        const task = row && toTaskSummary(row);
        if (!task || !readsTask(installer, task)) throw notFound();
        checkInstallable(installer, task);
        const [root] = await tx.query<RootRow>(ROOT, [tenant, task.id]);
        const used = await tx.query(
          'SELECT 1 FROM admissions WHERE tenant_id = $1 AND root_id = $2 LIMIT 1',
          [tenant, task.id],
        );
        checkRootUnused(task, root!, used.length > 0);
        await checkNames(tx, tenant, plan);
        const done = await tx.query(
          `UPDATE tasks SET constraints = $1, constraints_installed_at = $2, constraints_installed_by = $3,
             status = 'active'
           WHERE tenant_id = $4 AND id = $5 AND constraints IS NULL AND status = 'draft' AND parent_id IS NULL
           RETURNING 1`,
          [JSON.stringify(plan), at.toISOString(), installer.id, tenant, task.id],
        );
        // Every condition of the UPDATE was checked above under the same lock.
        if (done.length !== 1)
          throw new Error('the execution plan was not installed after its checks passed');
        const [installed] = await tx.query<RootRow>(ROOT, [tenant, task.id]);
        return describe(tx, installer, taskId, installed!);
      });
    } catch (err) {
      throw pgStoreError(err, `execution constraints of task ${taskId}`);
    }
  }
}

/** A plan that names an unknown capability or actor is a typo, not a bound. */
async function checkNames(tx: PgTx, tenant: string, plan: ExecutionPlan): Promise<void> {
  for (const [field, names, table, column] of [
    ['capabilities', plan.capabilities, 'capabilities', 'name'],
    ['actors', plan.actors, 'actors', 'id'],
  ] as const) {
    for (const [i, name] of (names ?? []).entries()) {
      const found = await tx.query(`SELECT 1 FROM ${table} WHERE tenant_id = $1 AND ${column} = $2`, [
        tenant,
        name,
      ]);
      if (found.length === 0) {
        throw new SvcError('invalid_request', `${field}.${i}: ${name} is not registered in this tenant`, {
          field: `${field}.${i}`,
        });
      }
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
