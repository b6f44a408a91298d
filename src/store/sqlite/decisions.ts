import { checkGuarded } from '../../core/guarded-write.js';
import { decision, type DecisionOps } from '../../core/decision/pipeline.js';
import type { DecisionWrites, IntentRow, StandingReceiptRow } from '../../core/decision/writes.js';
import { runSync } from '../../core/use-case.js';
import type { DecisionStore, Sealed } from '../decision-ports.js';
import { CommitQueue } from './commit-queue.js';
import type { Db } from './database.js';
import { DecisionStateLoader } from './decision-state.js';
import { thisProcess, type ExecutionOwner } from './execution-owner.js';
import { JournalWriter } from './journal.js';
import { sqliteDecisionEvents } from './outbox.js';
import { SqliteInputsWriter } from './policy-inputs.js';
import {
  admissionValues,
  executionValues,
  grantValues,
  openApprovalValues,
} from '../rows/decision-values.js';
import { SnapshotIdMap } from '../rows/policy-inputs.js';

/**
 * The decision pipeline's SQLite side: the reads and writes core/decision/pipeline.ts asks
 * for, answered synchronously inside one commit-queue transaction.
 */
export class SqliteDecisions implements DecisionStore {
  private readonly loader: DecisionStateLoader;
  private readonly journal: JournalWriter;
  private readonly queue: CommitQueue;
  private readonly inputs: SqliteInputsWriter;
  private readonly w;
  /**
   * The pipeline's reads and writes, answered at once inside the commit queue's transaction
   * (readable so a test can put a competing writer between a read and a guarded write).
   */
  readonly ops: DecisionOps;

  constructor(
    private readonly db: Db,
    private readonly clock: () => Date = () => new Date(),
    queue?: CommitQueue,
    /** the process a brokered execution's call runs in */
    private readonly owner: ExecutionOwner = thisProcess(),
  ) {
    this.loader = new DecisionStateLoader(db);
    this.journal = new JournalWriter(db);
    this.queue = queue ?? new CommitQueue(db);
    this.inputs = new SqliteInputsWriter(db);
    this.w = {
      // Positional parameters: binding by name costs a lookup per parameter on the hot path.
      insertIntent: db.prepare(
        `INSERT INTO intents (tenant_id, id, task_id, step, actor_id, capability, action, route, request_digest, request,
           outcome, code, reason, amount_micros, grant_id, approval_id, receipt_id, created_at, updated_at)
         VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
      ),
      updateIntent: db.prepare(
        `UPDATE intents SET outcome = @outcome, code = @code, reason = @reason, amount_micros = @amountMicros,
           grant_id = @grantId, approval_id = @approvalId, receipt_id = @receiptId, updated_at = @at
         WHERE tenant_id = @tenantId AND id = @id`,
      ),
      insertKey: db.prepare(
        `INSERT INTO effect_keys (tenant_id, task_id, step, state, intent_id, request_digest, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?)`,
      ),
      claimKey: db.prepare(
        `UPDATE effect_keys SET state = 'claimed', updated_at = ?
         WHERE tenant_id = ? AND task_id = ? AND step = ? AND state = ? AND intent_id = ?`,
      ),
      dropKey: db.prepare(
        'DELETE FROM effect_keys WHERE tenant_id = ? AND task_id = ? AND step = ? AND state = ? AND intent_id = ?',
      ),
      openApproval: db.prepare(
        `INSERT INTO approvals (tenant_id, id, intent_id, task_id, step, capability, action, requester_id, amount_micros,
           request_digest, status, expires_at, created_at, request, amount_source)
         VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, 'pending', ?, ?, ?, ?)`,
      ),
      consumeApproval: db.prepare(
        `UPDATE approvals SET status = 'consumed', consumed_at = ? WHERE tenant_id = ? AND id = ? AND status = 'approved'`,
      ),
      reserve: db.prepare(
        `UPDATE tasks SET reserved_micros = reserved_micros + ? WHERE tenant_id = ? AND id = ? AND reserved_micros + ? <= budget_micros`,
      ),
      admit: db.prepare(
        `INSERT INTO admissions (tenant_id, id, root_id, task_id, intent_id, actor_id, capability, amount_micros, created_at)
         VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)`,
      ),
      execution: db.prepare(
        `INSERT INTO executions (tenant_id, id, intent_id, task_id, step, actor_id, capability, action, tier, surface_id,
           operation, credential_ref, state, created_at, owner_pid, owner_instance)
         VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, 'pending', ?, ?, ?)`,
      ),
      standingReceipt: db.prepare(
        `SELECT j.receipt_id AS receiptId, j.sequence, j.record_hash AS recordHash, j.record, j.occurred_at AS occurredAt
         FROM intents i JOIN journal j ON j.tenant_id = i.tenant_id AND j.receipt_id = i.receipt_id
         WHERE i.tenant_id = ? AND i.id = ?`,
      ),
      grant: db.prepare(
        `INSERT INTO grants (tenant_id, id, intent_id, actor_id, capability, task_id, expires_at, created_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?)`,
      ),
    };
    const loader = this.loader;
    this.ops = {
      load: (req, caller, now) => loader.load(req, caller, now),
      surface: (tenantId, surfaceId) => loader.surface(tenantId, surfaceId),
      policySource: (tenantId) => loader.policySource(tenantId),
      openApprovals: (tenantId, actorId, taskId, now) => loader.openApprovals(tenantId, actorId, taskId, now),
      standingReceipt: (tenantId, intentId) =>
        this.w.standingReceipt.get(tenantId, intentId) as StandingReceiptRow | undefined,
      apply: (writes) => this.apply(writes),
      ...sqliteDecisionEvents(db),
    };
  }

  decide(...[req, caller, mode, rules]: Parameters<DecisionStore['decide']>): Promise<Sealed> {
    const learned = new SnapshotIdMap();
    // The decision reads the log state only through its journal writer: its log state and
    // activity count are written once per batch (batch-end.ts).
    const sealed = this.queue.submit(
      () => this.inputs.job(learned, () => runSync(decision(req, caller, mode, rules, this.clock), this.ops)),
      { deferWrites: true },
    );
    return sealed.then((s) => {
      this.inputs.committed(learned);
      return s;
    });
  }

  /** Every sealed outcome: its state change and its journal record, together. */
  private apply(p: DecisionWrites): ReturnType<JournalWriter['append']> {
    const t = p.tenantId;
    if (p.reserve) {
      // decide() checked the budget on the state read in this transaction; this guards the invariant.
      const { taskId, amountMicros } = p.reserve;
      checkGuarded(
        'the budget reservation',
        this.w.reserve.run(amountMicros, t, taskId, amountMicros).changes,
      );
    }
    if (p.consumeApproval) {
      const { approvalId, consumedAt } = p.consumeApproval;
      checkGuarded('the approval consumption', this.w.consumeApproval.run(consumedAt, t, approvalId).changes);
    }
    if (p.admission) this.w.admit.run(admissionValues(t, p.admission));
    if (p.grant) this.w.grant.run(grantValues(t, p.grant));
    if (p.execution) this.w.execution.run(executionValues(t, p.execution, this.owner));
    if (p.openApproval) this.w.openApproval.run(openApprovalValues(t, p.openApproval));
    if (p.intentWrite === 'insert') this.w.insertIntent.run(intentValues(p.intent));
    else checkGuarded('the intent', this.w.updateIntent.run(p.intent).changes);
    const k = p.effectKey;
    if (k?.op === 'insert')
      this.w.insertKey.run(t, k.taskId, k.step, k.state, k.intentId, k.requestDigest, k.at);
    else if (k?.op === 'claim') {
      const { state, intentId } = k.expect;
      checkGuarded(
        'the deferral this resume holds',
        this.w.claimKey.run(k.at, t, k.taskId, k.step, state, intentId).changes,
      );
    } else if (k?.op === 'drop') {
      const { state, intentId } = k.expect;
      checkGuarded(
        'the effect key release',
        this.w.dropKey.run(t, k.taskId, k.step, state, intentId).changes,
      );
    }
    const appended = this.journal.append(p.journal, p.at);
    // With its journal record: a replay finds the inputs of every record that has them.
    if (p.inputs) this.inputs.write(t, appended.sequence, p.inputs);
    return appended;
  }
}

/** The new intent's values, in the column order of `insertIntent` (`at` is created_at and updated_at). */
function intentValues(i: IntentRow): unknown[] {
  return [
    i.tenantId,
    i.id,
    i.taskId,
    i.step,
    i.actorId,
    i.capability,
    i.action,
    i.route,
    i.requestDigest,
    i.request,
    i.outcome,
    i.code,
    i.reason,
    i.amountMicros,
    i.grantId,
    i.approvalId,
    i.receiptId,
    i.at,
    i.at,
  ];
}
