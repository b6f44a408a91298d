import type { Actor } from '../../core/actor.js';
import type { ExecutionPlan } from '../../core/constraints.js';
import {
  constraintsInstallation,
  type ConstraintsInstallationOps,
} from '../../core/constraints-installation.js';
import { readsFullLedger, readsTask } from '../../core/readers.js';
import { runSync } from '../../core/use-case.js';
import type { AdmissionLedger, ConstraintProfile, ExecutionConstraints } from '../query-ports.js';
import {
  constraintProfile,
  fullLedger,
  toRootPlanState,
  type AdmissionRow,
  type RootRow,
  type RootStateRow,
} from '../rows/constraints.js';
import { storeError, type Db } from './database.js';
import { TASK_SUMMARY, toTaskSummary, type TaskSummaryRow } from './task-reads.js';
import { writeTransaction } from './write-lock.js';

/** What core/constraints-installation.ts asks for, answered at once on the caller's transaction. */
export function constraintsInstallationOps(db: Db): ConstraintsInstallationOps {
  const q = {
    task: db
      .prepare<[string, string], TaskSummaryRow>(`${TASK_SUMMARY} WHERE t.tenant_id = ? AND t.id = ?`)
      .safeIntegers(true),
    rootState: db.prepare<[string, string], RootStateRow>(
      `SELECT constraints, constraints_installed_at, constraints_installed_by,
         EXISTS (SELECT 1 FROM admissions a WHERE a.tenant_id = t.tenant_id AND a.root_id = t.id) AS used
       FROM tasks t WHERE t.tenant_id = ? AND t.id = ?`,
    ),
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
  return {
    task: (tenantId, id) => {
      const row = q.task.get(tenantId, id);
      return row && toTaskSummary(row);
    },
    rootState: (tenantId, rootId) => toRootPlanState(q.rootState.get(tenantId, rootId)!),
    registered: (tenantId, capabilities, actors) => ({
      capabilities: capabilities.filter((name) => q.capability.get(tenantId, name) === 1),
      actors: actors.filter((id) => q.actor.get(tenantId, id) === 1),
    }),
    installPlan: (tenantId, taskId, plan, at, by) => q.install.run(plan, at, by, tenantId, taskId).changes,
  };
}

export class SqliteConstraints implements ExecutionConstraints {
  private readonly q;
  private readonly ops: ConstraintsInstallationOps;

  constructor(private readonly db: Db) {
    this.ops = constraintsInstallationOps(db);
    this.q = {
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
    };
  }

  async profile(viewer: Actor, taskId: string): Promise<ConstraintProfile | undefined> {
    const task = this.ops.task(viewer.tenantId, taskId);
    if (!task || !readsTask(viewer, task)) return undefined;
    const root = this.q.root.get(viewer.tenantId, task.rootId);
    if (!root) return undefined;
    return this.describe(viewer, task.id, root);
  }

  async install(installer: Actor, taskId: string, plan: ExecutionPlan, at: Date): Promise<ConstraintProfile> {
    try {
      await writeTransaction(
        this.db,
        this.db.transaction(() => runSync(constraintsInstallation(installer, taskId, plan, at), this.ops)),
      );
    } catch (err) {
      throw storeError(err, `execution constraints of task ${taskId}`);
    }
    const root = this.q.root.get(installer.tenantId, taskId)!;
    return this.describe(installer, taskId, root);
  }

  private describe(viewer: Actor, taskId: string, root: RootRow): ConstraintProfile {
    const ledger: AdmissionLedger = readsFullLedger(viewer, root.sponsor_id)
      ? fullLedger(this.q.ledger.all(viewer.tenantId, root.id))
      : { visibility: 'own', reservationIds: this.q.own.all(viewer.tenantId, root.id, viewer.id) };
    return constraintProfile(taskId, root, ledger);
  }
}
