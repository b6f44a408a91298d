import type { Actor } from '../../core/actor.js';
import { APPROVAL_TTL_MS, decide } from '../../core/decision/decide.js';
import type { Outcome } from '../../core/decision/outcome.js';
import type { DecisionRequest } from '../../core/decision/request.js';
import { randomId } from '../../core/ids.js';
import { formatUsd } from '../../core/money.js';
import type {
  DecisionStore,
  PendingExecution,
  PolicyResolver,
  Sealed,
  SurfaceCheck,
} from '../decision-ports.js';
import type { PgCommitQueue } from './commit-queue.js';
import type { PgTx } from './database.js';
import { loadDecisionState, loadPolicySource, type LoadedState } from './decision-state.js';
import { appendJournal } from './journal.js';
import type { ReplicaOwner } from './replica.js';

export const GRANT_TTL_MS = 5 * 60_000;

type SealedOutcome = Extract<Outcome, { kind: 'refused' | 'deferred' | 'allowed' }>;
type Rules = Parameters<DecisionStore['decide']>[3];

/**
 * The decision pipeline on PostgreSQL: load, decide (pure), record and journal in one
 * transaction of the group-commit queue, which holds the tenant's lock before the first
 * read. The reply waits for the batch's COMMIT.
 */
export class PgDecisions implements DecisionStore {
  constructor(
    private readonly queue: PgCommitQueue,
    private readonly clock: () => Date,
    private readonly owner: ReplicaOwner,
  ) {}

  decide(...args: Parameters<DecisionStore['decide']>): Promise<Sealed> {
    return this.queue.submit(args[0].tenantId, (tx) => this.decideIn(tx, ...args));
  }

  private async decideIn(
    tx: PgTx,
    req: DecisionRequest,
    caller: Actor,
    mode: 'new' | 'resume',
    rules: Rules,
  ): Promise<Sealed> {
    const now = this.clock();
    const loaded = await loadDecisionState(tx, req, caller, now);
    const surface = this.surface(req, loaded, rules.surface);
    const state = surface.ok ? loaded.state : { ...loaded.state, surfaceProblem: surface.problem };
    const policy = await resolvePolicy(tx, rules.policy, req.tenantId, loaded.registryVersion);
    const outcome = decide(req, state, { policy, constraints: rules.constraints }, mode);
    if (outcome.kind === 'no_deferral' || outcome.kind === 'conflict') {
      return outcome.kind === 'no_deferral' ? outcome : { ...outcome };
    }
    const intentId = mode === 'resume' ? state.effectKey!.intentId : randomId('int');
    if (outcome.kind === 'deferred' && outcome.standing) return standing(tx, req.tenantId, intentId, outcome);
    return this.record(
      tx,
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

  /** Step 7's input: only a brokered capability on the brokered route has a surface to judge. */
  private surface(
    req: DecisionRequest,
    loaded: LoadedState,
    check: SurfaceCheck | undefined,
  ): { ok: true; target?: Omit<PendingExecution, 'executionId'> } | { ok: false; problem: string } {
    const cap = loaded.state.capability;
    if (req.route !== 'brokered' || cap?.custody !== 'brokered' || !cap.surfaceId || !cap.operation) {
      return { ok: true };
    }
    if (!check)
      return { ok: false, problem: 'no integration-operations document is configured on this daemon' };
    const r = check({
      tenantId: req.tenantId,
      surfaceId: cap.surfaceId,
      operation: cap.operation,
      state: loaded.surface,
    });
    if (!r.ok) return r;
    return {
      ok: true,
      target: { surfaceId: cap.surfaceId, operation: cap.operation, credentialRef: r.credentialRef },
    };
  }

  private async record(
    tx: PgTx,
    req: DecisionRequest,
    caller: Actor,
    mode: 'new' | 'resume',
    o: SealedOutcome,
    intentId: string,
    constraintsRoot: string | undefined,
    custody: string | undefined,
    now: Date,
    brokered?: Omit<PendingExecution, 'executionId'>,
  ): Promise<Sealed> {
    const at = now.toISOString();
    const receiptId = randomId('rcp');
    const t = req.tenantId;
    let grant: { grantId: string; expiresAt: string } | undefined;
    let approval: { approvalId: string; status: string; expiresAt?: string } | undefined;
    let execution: PendingExecution | undefined;

    if (o.kind === 'allowed') {
      const reserved = await tx.query(
        `UPDATE tasks SET reserved_micros = reserved_micros + $1
         WHERE tenant_id = $2 AND id = $3 AND reserved_micros + $1 <= budget_micros RETURNING 1`,
        [o.amountMicros.toString(), t, req.taskId],
      );
      // decide() checked the budget on the state read under the tenant lock; this guards the invariant.
      if (reserved.length !== 1) throw new Error('budget reservation failed after the budget check');
      if (o.consumeApprovalId) {
        const consumed = await tx.query(
          `UPDATE approvals SET status = 'consumed', consumed_at = $1
           WHERE tenant_id = $2 AND id = $3 AND status = 'approved' RETURNING 1`,
          [at, t, o.consumeApprovalId],
        );
        if (consumed.length !== 1) throw new Error('approval could not be consumed');
        approval = { approvalId: o.consumeApprovalId, status: 'consumed' };
      }
      if (constraintsRoot) {
        await tx.query(
          `INSERT INTO admissions (tenant_id, id, root_id, task_id, intent_id, actor_id, capability, amount_micros, created_at)
           VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)`,
          [
            t,
            randomId('adm'),
            constraintsRoot,
            req.taskId,
            intentId,
            caller.id,
            req.capability,
            o.amountMicros.toString(),
            at,
          ],
        );
      }
      if (req.route === 'action' && custody === 'grant') {
        grant = { grantId: randomId('grt'), expiresAt: new Date(now.getTime() + GRANT_TTL_MS).toISOString() };
        await tx.query(
          `INSERT INTO grants (tenant_id, id, intent_id, actor_id, capability, task_id, expires_at, created_at)
           VALUES ($1, $2, $3, $4, $5, $6, $7, $8)`,
          [t, grant.grantId, intentId, caller.id, req.capability, req.taskId, grant.expiresAt, at],
        );
      }
      if (req.route === 'brokered' && brokered) {
        // Durable before the provider is called, owned by this replica (replica.ts).
        execution = { executionId: randomId('exe'), ...brokered };
        await tx.query(
          `INSERT INTO executions (tenant_id, id, intent_id, task_id, step, actor_id, capability, action, tier, surface_id,
             operation, credential_ref, state, created_at, owner_pid, owner_instance)
           VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, 'pending', $13, $14, $15)`,
          [
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
            this.owner.replicaId,
          ],
        );
      }
    } else if (o.kind === 'deferred') {
      if (o.openApproval) {
        approval = {
          approvalId: randomId('apr'),
          status: 'pending',
          expiresAt: new Date(now.getTime() + APPROVAL_TTL_MS).toISOString(),
        };
        await tx.query(
          `INSERT INTO approvals (tenant_id, id, intent_id, task_id, step, capability, action, requester_id, amount_micros,
             request_digest, status, expires_at, created_at) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, 'pending', $11, $12)`,
          [
            t,
            approval.approvalId,
            intentId,
            req.taskId,
            req.step,
            req.capability,
            req.action,
            caller.id,
            o.amountMicros.toString(),
            req.digest,
            approval.expiresAt,
            at,
          ],
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
    const intentRow = [
      t,
      intentId,
      outcome,
      code,
      reason,
      o.amountMicros.toString(),
      grant?.grantId ?? null,
      approval?.approvalId ?? null,
      receiptId,
      at,
    ];
    if (mode === 'new') {
      await tx.query(
        `INSERT INTO intents (tenant_id, id, outcome, code, reason, amount_micros, grant_id, approval_id, receipt_id,
           created_at, updated_at, task_id, step, actor_id, capability, action, route, request_digest, request)
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $10, $11, $12, $13, $14, $15, $16, $17, $18)`,
        [
          ...intentRow,
          req.taskId,
          req.step,
          caller.id,
          req.capability,
          req.action,
          req.route,
          req.digest,
          JSON.stringify({
            capability: req.capability,
            action: req.action,
            task_id: req.taskId,
            effect_key_step: req.step,
          }),
        ],
      );
    } else {
      await tx.query(
        `UPDATE intents SET outcome = $3, code = $4, reason = $5, amount_micros = $6, grant_id = $7, approval_id = $8,
           receipt_id = $9, updated_at = $10 WHERE tenant_id = $1 AND id = $2`,
        intentRow,
      );
    }
    await this.effectKey(tx, req, mode, o, intentId, at);

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
    const appended = await appendJournal(
      tx,
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

  /**
   * The effect key: an allow claims it, a deferral holds it, a refusal on resume frees it.
   * A new claim is a plain INSERT and a resume's claim must find its own deferral: with the
   * tenant lock neither can meet another writer, and if one ever did, the primary key or the
   * guard fails the decision instead of letting two intents hold one key.
   */
  private async effectKey(
    tx: PgTx,
    req: DecisionRequest,
    mode: 'new' | 'resume',
    o: SealedOutcome,
    intentId: string,
    at: string,
  ): Promise<void> {
    const t = req.tenantId;
    if (mode === 'new' && (o.kind === 'allowed' || o.kind === 'deferred')) {
      await tx.query(
        `INSERT INTO effect_keys (tenant_id, task_id, step, state, intent_id, request_digest, updated_at)
         VALUES ($1, $2, $3, $4, $5, $6, $7)`,
        [t, req.taskId, req.step, o.kind === 'allowed' ? 'claimed' : 'deferred', intentId, req.digest, at],
      );
    } else if (mode === 'resume' && o.kind === 'allowed') {
      const claimed = await tx.query(
        `UPDATE effect_keys SET state = 'claimed', updated_at = $5
         WHERE tenant_id = $1 AND task_id = $2 AND step = $3 AND intent_id = $4 AND state = 'deferred' RETURNING 1`,
        [t, req.taskId, req.step, intentId, at],
      );
      if (claimed.length !== 1) throw new Error('the deferral this resume holds is gone');
    } else if (mode === 'resume' && o.kind === 'refused') {
      await tx.query(
        'DELETE FROM effect_keys WHERE tenant_id = $1 AND task_id = $2 AND step = $3 AND intent_id = $4',
        [t, req.taskId, req.step, intentId],
      );
    }
  }
}

/** The cached policy, or (on a miss) its source loaded inside this transaction and compiled. */
async function resolvePolicy(
  tx: PgTx,
  resolver: PolicyResolver,
  tenantId: string,
  registryVersion: number,
): Promise<ReturnType<PolicyResolver['resolve']>> {
  const miss = Symbol('miss');
  try {
    return resolver.resolve(tenantId, registryVersion, () => {
      throw miss;
    });
  } catch (err) {
    if (err !== miss) throw err;
  }
  const source = await loadPolicySource(tx, tenantId);
  return resolver.resolve(tenantId, registryVersion, () => source);
}

/**
 * A resume that found the deferral as it stood: answered with the deferral's own sealed
 * receipt, and nothing written, so a client polling for its approval adds no records.
 */
async function standing(
  tx: PgTx,
  tenantId: string,
  intentId: string,
  o: Extract<SealedOutcome, { kind: 'deferred' }>,
): Promise<Sealed> {
  const [row] = await tx.query<{
    receipt_id: string;
    sequence: string;
    record_hash: string;
    record: string;
    occurred_at: string;
  }>(
    `SELECT j.receipt_id, j.sequence, j.record_hash, j.record, j.occurred_at FROM intents i
     JOIN journal j ON j.tenant_id = i.tenant_id AND j.receipt_id = i.receipt_id
     WHERE i.tenant_id = $1 AND i.id = $2`,
    [tenantId, intentId],
  );
  if (!row) throw new Error(`the standing deferral ${intentId} has no journal record`);
  return {
    kind: 'sealed',
    outcome: 'deferred',
    intentId,
    reason: o.reason,
    remedy: o.remedy,
    amountMicros: 0n,
    receipt: {
      receiptId: row.receipt_id,
      sequence: Number(row.sequence),
      recordHash: row.record_hash,
      occurredAt: row.occurred_at,
      record: JSON.parse(row.record) as Record<string, unknown>,
    },
    ...(o.approvalId ? { approval: { approvalId: o.approvalId, status: 'pending' } } : {}),
  };
}
