import type { Actor } from '../../core/actor.js';
import type { ExecutionPlan } from '../../core/constraints.js';
import { SvcError } from '../../core/errors.js';
import { readsFullLedger, readsTask } from '../../core/readers.js';
import type { AdmissionLedger, ConstraintProfile, ExecutionConstraints } from '../query-ports.js';
import { pgStoreError, type PgDb, type PgTx } from './database.js';
import { lockTenant } from './locks.js';
import type { PgTaskSummaryRow } from './registry-rows.js';
import { TASK_SUMMARY_ONE, toTaskSummary } from './task-reads.js';

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
  amount_micros: string;
  created_at: string;
}

type Query = PgDb | PgTx;

const notFound = (id: string) => new SvcError('not_found', `no task ${id}`);

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
            { code: 'not_root', remedy: `install the plan on the root task ${task.rootId}` },
          );
        }
        const [root] = await tx.query<RootRow>(ROOT, [tenant, task.id]);
        if (root!.constraints !== null) {
          throw new SvcError(
            'conflict',
            `the execution constraints of task ${task.id} were installed at ${root!.constraints_installed_at} by ${root!.constraints_installed_by} and can never be changed`,
            { code: 'constraints_installed', remedy: 'start a new root task with its own plan' },
          );
        }
        if (task.status !== 'draft') {
          throw new SvcError(
            'conflict',
            `task ${task.id} is ${task.status}; plans are installed on draft tasks`,
            { code: 'task_not_draft', remedy: 'start a new root task with its own plan' },
          );
        }
        const used = await tx.query(
          'SELECT 1 FROM admissions WHERE tenant_id = $1 AND root_id = $2 LIMIT 1',
          [tenant, task.id],
        );
        if (used.length > 0) {
          throw new SvcError(
            'conflict',
            `task ${task.id} already has admissions; plans are installed on unused tasks`,
            { code: 'task_used', remedy: 'start a new root task with its own plan' },
          );
        }
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
    const admissions = rows.map((r) => ({
      id: r.id,
      rootId: r.root_id,
      taskId: r.task_id,
      intentId: r.intent_id,
      actorId: r.actor_id,
      capability: r.capability,
      amountMicros: BigInt(r.amount_micros),
      createdAt: r.created_at,
    }));
    const totalMicros = admissions.reduce((sum, a) => sum + a.amountMicros, 0n);
    ledger = { visibility: 'full', admissions, count: admissions.length, totalMicros };
  } else {
    const own = await q.query<{ id: string }>(
      `SELECT id FROM admissions WHERE tenant_id = $1 AND root_id = $2 AND actor_id = $3
       ORDER BY created_at COLLATE "C", id COLLATE "C"`,
      [viewer.tenantId, root.id, viewer.id],
    );
    ledger = { visibility: 'own', reservationIds: own.map((r) => r.id) };
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
