import { decide } from '../../core/decision/decide.js';
import {
  boundOpenApprovals,
  DEFAULT_OPEN_APPROVAL_LIMITS,
  opensApproval,
} from '../../core/decision/open-approvals.js';
import { judgeSurface, surfaceToJudge } from '../../core/decision/surface.js';
import {
  planDecision,
  sealedReply,
  standingReply,
  type DecisionWrites,
  type IntentRow,
  type StandingReceiptRow,
} from '../../core/decision/writes.js';
import { newId } from '../../core/ids.js';
import type { DecisionStore, Sealed } from '../decision-ports.js';
import { CommitQueue } from './commit-queue.js';
import type { Db } from './database.js';
import { DecisionStateLoader } from './decision-state.js';
import { thisProcess, type ExecutionOwner } from './execution-owner.js';
import { JournalWriter } from './journal.js';
import {
  admissionValues,
  executionValues,
  grantValues,
  openApprovalValues,
} from '../rows/decision-values.js';

/**
 * The decision pipeline's SQLite side: load, decide (core), plan the writes (core), and
 * apply them with their journal record in one transaction.
 */
export class SqliteDecisions implements DecisionStore {
  private readonly loader: DecisionStateLoader;
  private readonly journal: JournalWriter;
  private readonly queue: CommitQueue;
  private readonly w;

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
      putKey: db.prepare(
        `INSERT INTO effect_keys (tenant_id, task_id, step, state, intent_id, request_digest, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?)
         ON CONFLICT (tenant_id, task_id, step) DO UPDATE SET state = excluded.state, updated_at = excluded.updated_at`,
      ),
      dropKey: db.prepare('DELETE FROM effect_keys WHERE tenant_id = ? AND task_id = ? AND step = ?'),
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
  }

  decide(...args: Parameters<DecisionStore['decide']>): Promise<Sealed> {
    return this.queue.submit(() => this.decideNow(...args));
  }

  private decideNow(...[req, caller, mode, rules]: Parameters<DecisionStore['decide']>): Sealed {
    const now = this.clock();
    const { state: loaded, registryVersion } = this.loader.load(req, caller, now);
    const needed = surfaceToJudge(req, loaded.capability);
    const surface = judgeSurface(
      req.tenantId,
      needed,
      rules.surface,
      needed && this.loader.surface(req.tenantId, needed.surfaceId),
    );
    const state = surface.ok ? loaded : { ...loaded, surfaceProblem: surface.problem };
    const policy =
      rules.policy.cached(req.tenantId, registryVersion) ??
      rules.policy.install(req.tenantId, registryVersion, this.loader.policySource(req.tenantId));
    const decided = decide(req, state, { policy, constraints: rules.constraints }, mode);
    // Read in this transaction, under the single writer: two requests cannot both take the last slot.
    const outcome = opensApproval(decided)
      ? boundOpenApprovals(
          decided,
          req,
          caller.id,
          this.loader.openApprovals(req.tenantId, caller.id, req.taskId, now),
          rules.openApprovals ?? DEFAULT_OPEN_APPROVAL_LIMITS,
        )
      : decided;
    if (outcome.kind === 'no_deferral' || outcome.kind === 'conflict') {
      return outcome.kind === 'no_deferral' ? outcome : { ...outcome };
    }
    const intentId = mode === 'resume' ? state.effectKey!.intentId : newId('int');
    if (outcome.kind === 'deferred' && outcome.standing) {
      const row = this.w.standingReceipt.get(req.tenantId, intentId) as StandingReceiptRow | undefined;
      if (!row) throw new Error(`the standing deferral ${intentId} has no journal record`);
      return standingReply(intentId, outcome, row);
    }
    const writes = planDecision({
      req,
      caller,
      mode,
      outcome,
      intentId,
      now,
      constraintsRoot: state.constraints?.rootId,
      custody: state.capability?.custody,
      ...(surface.ok && surface.target ? { brokered: surface.target } : {}),
    });
    return sealedReply(writes, this.apply(writes));
  }

  /** Every sealed outcome: its state change and its journal record, together. */
  private apply(p: DecisionWrites): ReturnType<JournalWriter['append']> {
    const t = p.tenantId;
    if (p.reserve) {
      const { taskId, amountMicros } = p.reserve;
      if (this.w.reserve.run(amountMicros, t, taskId, amountMicros).changes !== 1) {
        // decide() checked the budget on the state read in this transaction; this guards the invariant.
        throw new Error('budget reservation failed after the budget check');
      }
    }
    if (p.consumeApproval) {
      const { approvalId, consumedAt } = p.consumeApproval;
      if (this.w.consumeApproval.run(consumedAt, t, approvalId).changes !== 1) {
        throw new Error('approval could not be consumed');
      }
    }
    if (p.admission) this.w.admit.run(admissionValues(t, p.admission));
    if (p.grant) this.w.grant.run(grantValues(t, p.grant));
    if (p.execution) this.w.execution.run(executionValues(t, p.execution, this.owner));
    if (p.openApproval) this.w.openApproval.run(openApprovalValues(t, p.openApproval));
    if (p.intentWrite === 'insert') this.w.insertIntent.run(intentValues(p.intent));
    else this.w.updateIntent.run(p.intent);
    const k = p.effectKey;
    if (k?.op === 'drop') this.w.dropKey.run(t, k.taskId, k.step);
    else if (k) this.w.putKey.run(t, k.taskId, k.step, k.state, k.intentId, k.requestDigest, k.at);
    return this.journal.append(p.journal, p.at);
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
