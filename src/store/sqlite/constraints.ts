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
import { storeError, type Db } from './database.js';
import { TASK_SUMMARY, toTaskSummary, type TaskSummaryRow } from './task-reads.js';
import { writeTransaction } from './write-lock.js';

export class SqliteConstraints implements ExecutionConstraints {
  private readonly q;

  constructor(private readonly db: Db) {
    this.q = {
      task: db
        .prepare<[string, string], TaskSummaryRow>(`${TASK_SUMMARY} WHERE t.tenant_id = ? AND t.id = ?`)
        .safeIntegers(true),
      root: db.prepare<[string, string], RootRow>(
        `SELECT id, sponsor_id, constraints, constraints_installed_at, constraints_installed_by
         FROM tasks WHERE tenant_id = ? AND id = ?`,
      ),
      ledger: db
        .prepare<[string, string], AdmissionRow>(
          `SELECT id, root_id, task_id, intent_id, actor_id, capability, amount_micros, created_at
           FROM admissions WHERE tenant_id = ? AND root_id = ? ORDER BY created_at, id`,
        )
        .safeIntegers(true),
      own: db
        .prepare<[string, string, string], string>(
          'SELECT id FROM admissions WHERE tenant_id = ? AND root_id = ? AND actor_id = ? ORDER BY created_at, id',
        )
        .pluck(),
      used: db
        .prepare<[string, string], number>(
          'SELECT EXISTS (SELECT 1 FROM admissions WHERE tenant_id = ? AND root_id = ?)',
        )
        .pluck(),
      capability: db
        .prepare<[string, string], number>(
          'SELECT EXISTS (SELECT 1 FROM capabilities WHERE tenant_id = ? AND name = ?)',
        )
        .pluck(),
      actor: db
        .prepare<[string, string], number>(
          'SELECT EXISTS (SELECT 1 FROM actors WHERE tenant_id = ? AND id = ?)',
        )
        .pluck(),
      install: db.prepare<[string, string, string, string, string]>(
        `UPDATE tasks SET constraints = ?, constraints_installed_at = ?, constraints_installed_by = ?,
           status = 'active'
         WHERE tenant_id = ? AND id = ? AND constraints IS NULL AND status = 'draft' AND parent_id IS NULL`,
      ),
    };
  }

  async profile(viewer: Actor, taskId: string): Promise<ConstraintProfile | undefined> {
    const row = this.q.task.get(viewer.tenantId, taskId);
    const task = row && toTaskSummary(row);
    if (!task || !readsTask(viewer, task)) return undefined;
    const root = this.q.root.get(viewer.tenantId, task.rootId);
    if (!root) return undefined;
    return this.describe(viewer, task.id, root);
  }

  async install(installer: Actor, taskId: string, plan: ExecutionPlan, at: Date): Promise<ConstraintProfile> {
    const tenant = installer.tenantId;
    const tx = this.db.transaction(() => {
      const row = this.q.task.get(tenant, taskId);
      const task = row && toTaskSummary(row);
      if (!task || !readsTask(installer, task)) throw notFound();
      checkInstallable(installer, task);
      checkRootUnused(task, this.q.root.get(tenant, task.id)!, this.q.used.get(tenant, task.id) === 1);
      this.checkNames(tenant, plan);
      const done = this.q.install.run(JSON.stringify(plan), at.toISOString(), installer.id, tenant, task.id);
      // Every condition of the UPDATE was checked above under the same write lock.
      if (done.changes !== 1) throw new Error('the execution plan was not installed after its checks passed');
    });
    try {
      await writeTransaction(this.db, tx);
    } catch (err) {
      throw storeError(err, `execution constraints of task ${taskId}`);
    }
    const root = this.q.root.get(tenant, taskId)!;
    return this.describe(installer, taskId, root);
  }

  /** A plan that names an unknown capability or actor is a typo, not a bound. */
  private checkNames(tenant: string, plan: ExecutionPlan): void {
    for (const [field, names, exists] of [
      ['capabilities', plan.capabilities, this.q.capability],
      ['actors', plan.actors, this.q.actor],
    ] as const) {
      (names ?? []).forEach((name, i) => {
        if (exists.get(tenant, name) !== 1) {
          throw new SvcError('invalid_request', `${field}.${i}: ${name} is not registered in this tenant`, {
            field: `${field}.${i}`,
          });
        }
      });
    }
  }

  private describe(viewer: Actor, taskId: string, root: RootRow): ConstraintProfile {
    const ledger: AdmissionLedger = readsFullLedger(viewer, root.sponsor_id)
      ? fullLedger(this.q.ledger.all(viewer.tenantId, root.id))
      : { visibility: 'own', reservationIds: this.q.own.all(viewer.tenantId, root.id, viewer.id) };
    return constraintProfile(taskId, root, ledger);
  }
}
