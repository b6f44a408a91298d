import type { Actor } from '../../core/actor.js';
import type { ExecutionPlan } from '../../core/constraints.js';
import { SvcError } from '../../core/errors.js';
import { readsFullLedger, readsTask } from '../../core/readers.js';
import type { AdmissionLedger, ConstraintProfile, ExecutionConstraints } from '../query-ports.js';
import { storeError, type Db } from './database.js';
import { TASK_SUMMARY, toTaskSummary, type TaskSummaryRow } from './task-reads.js';
import { writeTransaction } from './write-lock.js';

interface RootRow {
  id: string;
  sponsor_id: string;
  constraints: string | null;
  constraints_installed_at: string | null;
  constraints_installed_by: string | null;
}

interface AdmissionRow {
  id: string;
  root_id: string;
  task_id: string;
  intent_id: string;
  actor_id: string;
  capability: string;
  amount_micros: bigint;
  created_at: string;
}

const notFound = (id: string) => new SvcError('not_found', `no task ${id}`);

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
      if (!task || !readsTask(installer, task)) throw notFound(taskId);
      if (task.sponsorId !== installer.id || installer.kind !== 'human') {
        throw new SvcError(
          'forbidden',
          `only the registered human sponsor of task ${task.id} (${task.sponsorId}) installs its execution constraints`,
          { code: 'not_sponsor', remedy: `ask ${task.sponsorId} to install the plan` },
        );
      }
      if (task.parentId !== null) {
        throw new SvcError(
          'conflict',
          `task ${task.id} is not a root; execution constraints are set on its root`,
          {
            code: 'not_root',
            remedy: `install the plan on the root task ${task.rootId}`,
          },
        );
      }
      const root = this.q.root.get(tenant, task.id)!;
      if (root.constraints !== null) {
        throw new SvcError(
          'conflict',
          `the execution constraints of task ${task.id} were installed at ${root.constraints_installed_at} by ${root.constraints_installed_by} and can never be changed`,
          { code: 'constraints_installed', remedy: 'start a new root task with its own plan' },
        );
      }
      if (task.status !== 'draft') {
        throw new SvcError(
          'conflict',
          `task ${task.id} is ${task.status}; plans are installed on draft tasks`,
          {
            code: 'task_not_draft',
            remedy: 'start a new root task with its own plan',
          },
        );
      }
      if (this.q.used.get(tenant, task.id) === 1) {
        throw new SvcError(
          'conflict',
          `task ${task.id} already has admissions; plans are installed on unused tasks`,
          {
            code: 'task_used',
            remedy: 'start a new root task with its own plan',
          },
        );
      }
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
    let ledger: AdmissionLedger;
    if (readsFullLedger(viewer, root.sponsor_id)) {
      const admissions = this.q.ledger.all(viewer.tenantId, root.id).map((r) => ({
        id: r.id,
        rootId: r.root_id,
        taskId: r.task_id,
        intentId: r.intent_id,
        actorId: r.actor_id,
        capability: r.capability,
        amountMicros: r.amount_micros,
        createdAt: r.created_at,
      }));
      const totalMicros = admissions.reduce((sum, a) => sum + a.amountMicros, 0n);
      ledger = { visibility: 'full', admissions, count: admissions.length, totalMicros };
    } else {
      ledger = {
        visibility: 'own',
        reservationIds: this.q.own.all(viewer.tenantId, root.id, viewer.id),
      };
    }
    return {
      taskId,
      rootId: root.id,
      rootSponsorId: root.sponsor_id,
      plan: root.constraints === null ? null : (JSON.parse(root.constraints) as ExecutionPlan),
      installedAt: root.constraints_installed_at,
      installedBy: root.constraints_installed_by,
      ledger,
    };
  }
}
