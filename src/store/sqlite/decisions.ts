import type { Actor } from '../../core/actor.js';
import { APPROVAL_TTL_MS, decide } from '../../core/decision/decide.js';
import type { Outcome } from '../../core/decision/outcome.js';
import type { DecisionRequest } from '../../core/decision/request.js';
import { formatUsd } from '../../core/money.js';
import { randomId } from '../../core/ids.js';
import type { Capability } from '../../core/capability.js';
import type { DecisionStore, PendingExecution, Sealed, SurfaceCheck } from '../decision-ports.js';
import { CommitQueue } from './commit-queue.js';
import type { Db } from './database.js';
import { DecisionStateLoader } from './decision-state.js';
import { thisProcess, type ExecutionOwner } from './execution-owner.js';
import { JournalWriter } from './journal.js';

export const GRANT_TTL_MS = 5 * 60_000;

type SealedOutcome = Extract<Outcome, { kind: 'refused' | 'deferred' | 'allowed' }>;

/** The decision pipeline's SQLite side: load, decide, record and journal in one transaction. */
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
      insertIntent: db.prepare(
        `INSERT INTO intents (tenant_id, id, task_id, step, actor_id, capability, action, route, request_digest, request,
           outcome, code, reason, amount_micros, grant_id, approval_id, receipt_id, created_at, updated_at)
         VALUES (@tenant, @id, @task, @step, @actor, @capability, @action, @route, @digest, @request,
           @outcome, @code, @reason, @amount, @grant, @approval, @receipt, @at, @at)`,
      ),
      updateIntent: db.prepare(
        `UPDATE intents SET outcome = @outcome, code = @code, reason = @reason, amount_micros = @amount, grant_id = @grant,
           approval_id = @approval, receipt_id = @receipt, updated_at = @at WHERE tenant_id = @tenant AND id = @id`,
      ),
      putKey: db.prepare(
        `INSERT INTO effect_keys (tenant_id, task_id, step, state, intent_id, request_digest, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?)
         ON CONFLICT (tenant_id, task_id, step) DO UPDATE SET state = excluded.state, updated_at = excluded.updated_at`,
      ),
      dropKey: db.prepare('DELETE FROM effect_keys WHERE tenant_id = ? AND task_id = ? AND step = ?'),
      openApproval: db.prepare(
        `INSERT INTO approvals (tenant_id, id, intent_id, task_id, step, capability, action, requester_id, amount_micros,
           request_digest, status, expires_at, created_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, 'pending', ?, ?)`,
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
        `SELECT j.receipt_id, j.sequence, j.record_hash, j.record, j.occurred_at FROM intents i
         JOIN journal j ON j.tenant_id = i.tenant_id AND j.receipt_id = i.receipt_id
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
    const { approvalTier, registryVersion } = this.loader.registry(req.tenantId);
    const loaded = this.loader.load(req, caller, now, approvalTier);
    const surface = this.surface(req, loaded.capability, rules.surface);
    const state = surface.ok ? loaded : { ...loaded, surfaceProblem: surface.problem };
    const policy = rules.policy.resolve(req.tenantId, registryVersion, () =>
      this.loader.policySource(req.tenantId),
    );
    const outcome = decide(req, state, { policy, constraints: rules.constraints }, mode);
    if (outcome.kind === 'no_deferral' || outcome.kind === 'conflict') {
      return outcome.kind === 'no_deferral' ? outcome : { ...outcome };
    }
    const intentId = mode === 'resume' ? state.effectKey!.intentId : randomId('int');
    if (outcome.kind === 'deferred' && outcome.standing)
      return this.standing(req.tenantId, intentId, outcome);
    return this.record(
      req,
      caller,
      mode,
      outcome,
      intentId,
      state.constraints?.rootId,
      state.capability?.custody,
      now,
      surface.ok ? surface.target : undefined,
    );
  }

  /**
   * A resume that found the deferral as it stood: answered with the deferral's own sealed
   * receipt, and nothing written, so a client polling for its approval adds no records.
   */
  private standing(
    tenantId: string,
    intentId: string,
    o: Extract<SealedOutcome, { kind: 'deferred' }>,
  ): Sealed {
    const row = this.w.standingReceipt.get(tenantId, intentId) as
      | { receipt_id: string; sequence: number; record_hash: string; record: string; occurred_at: string }
      | undefined;
    if (!row) throw new Error(`the standing deferral ${intentId} has no journal record`);
    const record = JSON.parse(row.record) as Record<string, unknown>;
    return {
      kind: 'sealed',
      outcome: 'deferred',
      intentId,
      reason: o.reason,
      remedy: o.remedy,
      amountMicros: 0n,
      receipt: {
        receiptId: row.receipt_id,
        sequence: row.sequence,
        recordHash: row.record_hash,
        occurredAt: row.occurred_at,
        record,
      },
      ...(o.approvalId ? { approval: { approvalId: o.approvalId, status: 'pending' } } : {}),
    };
  }

  /** Step 7's input: only a brokered capability on the brokered route has a surface to judge. */
  private surface(
    req: DecisionRequest,
    cap: Capability | undefined,
    check: SurfaceCheck | undefined,
  ): { ok: true; target?: Omit<PendingExecution, 'executionId'> } | { ok: false; problem: string } {
    if (req.route !== 'brokered' || cap?.custody !== 'brokered' || !cap.surfaceId || !cap.operation) {
      return { ok: true };
    }
    if (!check)
      return { ok: false, problem: 'no integration-operations document is configured on this daemon' };
    const r = check({
      tenantId: req.tenantId,
      surfaceId: cap.surfaceId,
      operation: cap.operation,
      state: this.loader.surface(req.tenantId, cap.surfaceId),
    });
    if (!r.ok) return r;
    return {
      ok: true,
      target: { surfaceId: cap.surfaceId, operation: cap.operation, credentialRef: r.credentialRef },
    };
  }

  /** Every sealed outcome: its state change and its journal record, together. */
  private record(
    req: DecisionRequest,
    caller: Actor,
    mode: 'new' | 'resume',
    o: SealedOutcome,
    intentId: string,
    constraintsRoot: string | undefined,
    custody: string | undefined,
    now: Date,
    brokered?: Omit<PendingExecution, 'executionId'>,
  ): Sealed {
    const at = now.toISOString();
    const receiptId = randomId('rcp');
    const t = req.tenantId;
    let grant: { grantId: string; expiresAt: string } | undefined;
    let approval: { approvalId: string; status: string; expiresAt?: string } | undefined;
    let execution: PendingExecution | undefined;

    if (o.kind === 'allowed') {
      if (this.w.reserve.run(o.amountMicros, t, req.taskId, o.amountMicros).changes !== 1) {
        // decide() checked the budget on the state read in this transaction; this guards the invariant.
        throw new Error('budget reservation failed after the budget check');
      }
      if (o.consumeApprovalId && this.w.consumeApproval.run(at, t, o.consumeApprovalId).changes !== 1) {
        throw new Error('approval could not be consumed');
      }
      if (constraintsRoot) {
        this.w.admit.run(
          t,
          randomId('adm'),
          constraintsRoot,
          req.taskId,
          intentId,
          caller.id,
          req.capability,
          o.amountMicros,
          at,
        );
      }
      if (req.route === 'action' && custody === 'grant') {
        grant = { grantId: randomId('grt'), expiresAt: new Date(now.getTime() + GRANT_TTL_MS).toISOString() };
        this.w.grant.run(
          t,
          grant.grantId,
          intentId,
          caller.id,
          req.capability,
          req.taskId,
          grant.expiresAt,
          at,
        );
      }
      if (req.route === 'brokered' && brokered) {
        // The intent to execute is durable before the provider is called: committed here,
        // with the decision, so a crash mid-call leaves a pending row that start-up finds.
        execution = { executionId: randomId('exe'), ...brokered };
        this.w.execution.run(
          t,
          execution.executionId,
          intentId,
          req.taskId,
          req.step,
          caller.id,
          req.capability,
          req.action,
          o.tier,
          brokered.surfaceId,
          brokered.operation,
          brokered.credentialRef,
          at,
          this.owner.pid,
          this.owner.instance,
        );
      }
      if (o.consumeApprovalId) approval = { approvalId: o.consumeApprovalId, status: 'consumed' };
    } else if (o.kind === 'deferred') {
      if (o.openApproval) {
        approval = {
          approvalId: randomId('apr'),
          status: 'pending',
          expiresAt: new Date(now.getTime() + APPROVAL_TTL_MS).toISOString(),
        };
        this.w.openApproval.run(
          t,
          approval.approvalId,
          intentId,
          req.taskId,
          req.step,
          req.capability,
          req.action,
          caller.id,
          o.amountMicros,
          req.digest,
          approval.expiresAt!,
          at,
        );
      } else if (o.approvalId) {
        approval = { approvalId: o.approvalId, status: 'pending' };
      }
    }

    const outcome = o.kind;
    const committed = o.kind === 'allowed' ? o.amountMicros : 0n;
    const code = o.kind === 'refused' ? o.code : null;
    const reason = o.kind === 'allowed' ? null : o.reason;
    const remedy = o.kind === 'allowed' ? null : (o.remedy ?? null);
    const intentRow = {
      tenant: t,
      id: intentId,
      task: req.taskId,
      step: req.step,
      actor: caller.id,
      capability: req.capability,
      action: req.action,
      route: req.route,
      digest: req.digest,
      request: JSON.stringify({
        capability: req.capability,
        action: req.action,
        task_id: req.taskId,
        effect_key_step: req.step,
      }),
      outcome,
      code,
      reason,
      amount: o.amountMicros,
      grant: grant?.grantId ?? null,
      approval: approval?.approvalId ?? null,
      receipt: receiptId,
      at,
    };
    if (mode === 'new') this.w.insertIntent.run(intentRow);
    else this.w.updateIntent.run(intentRow);

    // The effect key: an allow claims it, a deferral holds it, a refusal frees it.
    if (o.kind === 'allowed') this.w.putKey.run(t, req.taskId, req.step, 'claimed', intentId, req.digest, at);
    else if (o.kind === 'deferred' && mode === 'new')
      this.w.putKey.run(t, req.taskId, req.step, 'deferred', intentId, req.digest, at);
    else if (o.kind === 'refused' && mode === 'resume') this.w.dropKey.run(t, req.taskId, req.step);

    const record: Record<string, unknown> = {
      v: 1,
      kind: 'decision',
      receipt_id: receiptId,
      intent_id: intentId,
      tenant_id: t,
      actor_id: caller.id,
      task_id: req.taskId,
      effect_key_step: req.step,
      capability: req.capability,
      action: req.action,
      route: req.route,
      resumed: mode === 'resume',
      tier: o.tier,
      outcome,
      allowed: o.kind === 'allowed',
      code,
      reason,
      remedy,
      amount_usd: formatUsd(committed),
      requested_usd: formatUsd(o.amountMicros),
      grant_id: grant?.grantId ?? null,
      grant_expires_at: grant?.expiresAt ?? null,
      approval_id: approval?.approvalId ?? null,
      ...(execution ? { execution_id: execution.executionId } : {}),
      determining: o.kind === 'refused' ? (o.determining ?? []) : o.kind === 'allowed' ? o.determining : [],
      intent: req.intent,
      request_digest: req.digest,
      correlation_id: req.correlationId,
      trace_id: req.traceId,
      occurred_at: at,
    };
    const appended = this.journal.append(
      {
        tenantId: t,
        kind: 'decision',
        receiptId,
        taskId: req.taskId,
        intentId,
        actorId: caller.id,
        capability: req.capability,
        tier: o.tier,
        allowed: o.kind === 'allowed',
        grantId: grant?.grantId ?? '',
        amountMicros: committed,
        occurredAt: at,
        record,
      },
      at,
    );
    return {
      kind: 'sealed',
      outcome,
      intentId,
      ...(code !== null ? { code } : {}),
      ...(reason !== null ? { reason } : {}),
      ...(remedy !== null ? { remedy } : {}),
      amountMicros: committed,
      receipt: {
        receiptId,
        sequence: appended.sequence,
        recordHash: appended.recordHash,
        occurredAt: at,
        record,
      },
      ...(grant ? { grant } : {}),
      ...(approval ? { approval } : {}),
      ...(execution ? { execution } : {}),
    };
  }
}
