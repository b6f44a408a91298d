import type { Actor } from '../../core/actor.js';
import { decide } from '../../core/decision/decide.js';
import {
  boundOpenApprovals,
  DEFAULT_OPEN_APPROVAL_LIMITS,
  opensApproval,
} from '../../core/decision/open-approvals.js';
import type { DecisionRequest } from '../../core/decision/request.js';
import { judgeSurface, surfaceToJudge } from '../../core/decision/surface.js';
import { planDecision, sealedReply, standingReply, type DecisionWrites } from '../../core/decision/writes.js';
import { newId } from '../../core/ids.js';
import { journalWrite, type Appended } from '../../evidence/journal-append.js';
import type { LogState } from '../../evidence/journal-entry.js';
import { sha256 } from '../../evidence/node-crypto.js';
import type { DecisionStore, PolicyResolver, Sealed } from '../decision-ports.js';
import type { PgCommitQueue } from './commit-queue.js';
import type { PgTx } from './database.js';
import { loadDecisionState, loadOpenApprovals, loadPolicySource } from './decision-state.js';
import { journalParts } from './journal.js';
import type { ReplicaOwner } from './replica.js';
import { writeAll, type WritePart } from './write-parts.js';
import {
  admissionValues,
  executionValues,
  grantValues,
  openApprovalValues,
} from '../rows/decision-values.js';

type Rules = Parameters<DecisionStore['decide']>[3];

/**
 * The decision pipeline on PostgreSQL: load, decide and plan (core), apply the plan and its
 * journal record, in one transaction of the group-commit queue, which holds the tenant's
 * lock before the first read. The reply waits for the batch's COMMIT.
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
    const needed = surfaceToJudge(req, loaded.state.capability);
    const surface = judgeSurface(req.tenantId, needed, rules.surface, needed && loaded.surface);
    const state = surface.ok ? loaded.state : { ...loaded.state, surfaceProblem: surface.problem };
    const policy = await resolvePolicy(tx, rules.policy, req.tenantId, loaded.registryVersion);
    const decided = decide(req, state, { policy, constraints: rules.constraints }, mode);
    const outcome = opensApproval(decided)
      ? boundOpenApprovals(
          decided,
          req,
          caller.id,
          await loadOpenApprovals(tx, req.tenantId, caller.id, req.taskId, now),
          rules.openApprovals ?? DEFAULT_OPEN_APPROVAL_LIMITS,
        )
      : decided;
    if (outcome.kind === 'no_deferral' || outcome.kind === 'conflict') {
      return outcome.kind === 'no_deferral' ? outcome : { ...outcome };
    }
    const intentId = mode === 'resume' ? state.effectKey!.intentId : newId('int');
    if (outcome.kind === 'deferred' && outcome.standing) {
      return standingReply(intentId, outcome, await standingReceipt(tx, req.tenantId, intentId));
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
    return sealedReply(writes, await this.apply(tx, writes, loaded.log));
  }

  /**
   * Every sealed outcome: its state change and its journal record, in one statement (the
   * rows are distinct, none reads another's). The log state was read with the decision's
   * state under the tenant lock, and no other write of this transaction has appended since.
   */
  private async apply(tx: PgTx, p: DecisionWrites, log: LogState | undefined): Promise<Appended> {
    const t = p.tenantId;
    const parts: WritePart[] = [];
    if (p.reserve) {
      // decide() checked the budget on the state read under the tenant lock; this guards the invariant.
      parts.push({
        what: 'the budget reservation',
        sql: `UPDATE tasks SET reserved_micros = reserved_micros + $1
          WHERE tenant_id = $2 AND id = $3 AND reserved_micros + $1 <= budget_micros`,
        params: [p.reserve.amountMicros.toString(), t, p.reserve.taskId],
        exactlyOne: true,
      });
    }
    if (p.consumeApproval) {
      parts.push({
        what: 'the approval consumption',
        sql: `UPDATE approvals SET status = 'consumed', consumed_at = $1
          WHERE tenant_id = $2 AND id = $3 AND status = 'approved'`,
        params: [p.consumeApproval.consumedAt, t, p.consumeApproval.approvalId],
        exactlyOne: true,
      });
    }
    if (p.admission) {
      parts.push({
        what: 'the admission',
        sql: `INSERT INTO admissions (tenant_id, id, root_id, task_id, intent_id, actor_id, capability, amount_micros,
            created_at) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)`,
        params: admissionValues(t, p.admission),
      });
    }
    if (p.grant) {
      parts.push({
        what: 'the grant',
        sql: `INSERT INTO grants (tenant_id, id, intent_id, actor_id, capability, task_id, expires_at, created_at)
          VALUES ($1, $2, $3, $4, $5, $6, $7, $8)`,
        params: grantValues(t, p.grant),
      });
    }
    if (p.execution) {
      // Durable before the provider is called, owned by this replica's id (replica.ts).
      parts.push({
        what: 'the pending execution',
        sql: `INSERT INTO executions (tenant_id, id, intent_id, task_id, step, actor_id, capability, action, tier,
            surface_id, operation, credential_ref, state, created_at, owner_pid, owner_instance)
          VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, 'pending', $13, $14, $15)`,
        params: executionValues(t, p.execution, { pid: this.owner.pid, instance: this.owner.replicaId }),
      });
    }
    if (p.openApproval) {
      parts.push({
        what: 'the approval',
        sql: `INSERT INTO approvals (tenant_id, id, intent_id, task_id, step, capability, action, requester_id,
            amount_micros, request_digest, status, expires_at, created_at, request, amount_source)
          VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, 'pending', $11, $12, $13, $14)`,
        params: openApprovalValues(t, p.openApproval),
      });
    }
    parts.push(intentPart(p));
    const key = effectKeyPart(p);
    if (key) parts.push(key);
    const journal = journalWrite(log, p.journal, p.at, sha256);
    await writeAll(tx, [...parts, ...journalParts(journal)]);
    return journal.appended;
  }
}

function intentPart(p: DecisionWrites): WritePart {
  const i = p.intent;
  const changes = [
    p.tenantId,
    i.id,
    i.outcome,
    i.code,
    i.reason,
    i.amountMicros.toString(),
    i.grantId,
    i.approvalId,
  ];
  if (p.intentWrite === 'insert') {
    return {
      what: 'the intent',
      sql: `INSERT INTO intents (tenant_id, id, outcome, code, reason, amount_micros, grant_id, approval_id, receipt_id,
          created_at, updated_at, task_id, step, actor_id, capability, action, route, request_digest, request)
        VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $10, $11, $12, $13, $14, $15, $16, $17, $18)`,
      params: [
        ...changes,
        i.receiptId,
        i.at,
        i.taskId,
        i.step,
        i.actorId,
        i.capability,
        i.action,
        i.route,
        i.requestDigest,
        i.request,
      ],
    };
  }
  return {
    what: 'the intent',
    sql: `UPDATE intents SET outcome = $3, code = $4, reason = $5, amount_micros = $6, grant_id = $7, approval_id = $8,
        receipt_id = $9, updated_at = $10 WHERE tenant_id = $1 AND id = $2`,
    params: [...changes, i.receiptId, i.at],
    exactlyOne: true,
  };
}

/**
 * The effect key. A new claim or deferral is a plain INSERT, and a resume's claim must find
 * its own deferral: under the tenant lock neither can meet another writer, and if one ever
 * did, the primary key or the guard fails the decision rather than let two intents hold
 * one key (the SQLite adapter's upsert relies on its single writer instead).
 */
function effectKeyPart(p: DecisionWrites): WritePart | undefined {
  const k = p.effectKey;
  if (k === undefined) return undefined;
  if (k.op === 'drop') {
    return {
      what: 'the effect key release',
      sql: 'DELETE FROM effect_keys WHERE tenant_id = $1 AND task_id = $2 AND step = $3 AND intent_id = $4',
      params: [p.tenantId, k.taskId, k.step, p.intentId],
    };
  }
  if (p.intentWrite === 'insert') {
    return {
      what: 'the effect key',
      sql: `INSERT INTO effect_keys (tenant_id, task_id, step, state, intent_id, request_digest, updated_at)
        VALUES ($1, $2, $3, $4, $5, $6, $7)`,
      params: [p.tenantId, k.taskId, k.step, k.state, k.intentId, k.requestDigest, k.at],
    };
  }
  return {
    what: 'the deferral this resume holds',
    sql: `UPDATE effect_keys SET state = $5, updated_at = $6
      WHERE tenant_id = $1 AND task_id = $2 AND step = $3 AND intent_id = $4 AND state = 'deferred'`,
    params: [p.tenantId, k.taskId, k.step, k.intentId, k.state, k.at],
    exactlyOne: true,
  };
}

/** The cached policy, or (on a miss) its source loaded inside this transaction and compiled. */
async function resolvePolicy(
  tx: PgTx,
  resolver: PolicyResolver,
  tenantId: string,
  registryVersion: number,
): Promise<ReturnType<PolicyResolver['install']>> {
  return (
    resolver.cached(tenantId, registryVersion) ??
    resolver.install(tenantId, registryVersion, await loadPolicySource(tx, tenantId))
  );
}

async function standingReceipt(tx: PgTx, tenantId: string, intentId: string) {
  const [row] = await tx.query<{
    receiptId: string;
    sequence: string;
    recordHash: string;
    record: string;
    occurredAt: string;
  }>(
    `SELECT j.receipt_id AS "receiptId", j.sequence, j.record_hash AS "recordHash", j.record,
       j.occurred_at AS "occurredAt"
     FROM intents i JOIN journal j ON j.tenant_id = i.tenant_id AND j.receipt_id = i.receipt_id
     WHERE i.tenant_id = $1 AND i.id = $2`,
    [tenantId, intentId],
  );
  if (!row) throw new Error(`the standing deferral ${intentId} has no journal record`);
  return { ...row, sequence: Number(row.sequence) };
}
