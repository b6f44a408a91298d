import { decision, type DecisionOps } from '../../core/decision/pipeline.js';
import { pgDecisionEvents } from './outbox.js';
import type { DecisionWrites } from '../../core/decision/writes.js';
import { runAsync, type Async } from '../../core/use-case.js';
import { journalWrite, type Appended } from '../../evidence/journal-append.js';
import type { LogState } from '../../evidence/journal-entry.js';
import { sha256 } from '../../evidence/node-crypto.js';
import type { DecisionStore, Sealed } from '../decision-ports.js';
import type { PgCommitQueue, SharedPlace } from './commit-queue.js';
import type { PgTx } from './database.js';
import { DecisionBatch } from './decision-batch.js';
import {
  loadDecisionState,
  loadOpenApprovals,
  loadPolicySource,
  type LoadedState,
  type StateRequest,
} from './decision-state.js';
import { journalParts } from './journal.js';
import { inputsPart } from './policy-inputs.js';
import { SnapshotIdMap, SnapshotIds } from '../rows/policy-inputs.js';
import type { ReplicaOwner } from './replica.js';
import { writeAll, type WritePart } from './write-parts.js';
import {
  admissionValues,
  executionValues,
  grantValues,
  openApprovalValues,
} from '../rows/decision-values.js';

/**
 * The decision pipeline's PostgreSQL side: the reads and writes core/decision/pipeline.ts
 * asks for, in one transaction of the group-commit queue, which holds the tenant's lock
 * before the first read. The decisions of a batch share one state read and one write where
 * they can (decision-batch.ts). The reply waits for the batch's COMMIT.
 */
export class PgDecisions implements DecisionStore {
  /** snapshot ids of committed decisions (rows/policy-inputs.ts) */
  private readonly ids = new SnapshotIds();

  constructor(
    private readonly queue: PgCommitQueue,
    private readonly clock: () => Date,
    private readonly owner: ReplicaOwner,
  ) {
    queue.share((tx, tags) => new DecisionBatch(tx, tags as (StateRequest | undefined)[]));
  }

  decide(...[req, caller, mode, rules]: Parameters<DecisionStore['decide']>): Promise<Sealed> {
    const learned = new SnapshotIdMap();
    const tag: StateRequest = { req, caller };
    const sealed = this.queue.submit(
      req.tenantId,
      (tx, place) => {
        // A job run again (its batch rolled back) learns afresh: what it learned may be gone.
        learned.clear();
        return runAsync(decision(req, caller, mode, rules, this.clock), this.opsIn(tx, learned, place));
      },
      tag,
    );
    return sealed.then((s) => {
      if (learned.size > 0) this.ids.remember(learned);
      return s;
    });
  }

  /**
   * The pipeline's reads and writes in one tenant transaction. The first read brings the
   * capability's surface and the log state along (one round trip), so `surface` answers from
   * it and `apply` appends on the log state read under the lock. (Public so a test can put a
   * competing writer between a read and a guarded write.)
   */
  opsIn(tx: PgTx, learned = new SnapshotIdMap(), place?: SharedPlace): Async<DecisionOps> {
    let loaded: LoadedState | undefined;
    const batch = place?.run instanceof DecisionBatch ? place.run : undefined;
    // Anything else asked of the store sees every decision before this one written.
    const synced =
      <A extends unknown[], R>(f: (...a: A) => Promise<R>) =>
      async (...a: A): Promise<R> => {
        await batch?.sync();
        return f(...a);
      };
    const events = pgDecisionEvents(tx);
    return {
      load: async (req, caller, now) =>
        (loaded = batch
          ? await batch.load(place!.index, req, caller, now)
          : await loadDecisionState(tx, req, caller, now)),
      // the surface read with the state is the capability's, which is the one asked for
      surface: async () => loaded!.surface,
      // a policy and its verbs are never written by a decision
      policySource: (tenantId) => loadPolicySource(tx, tenantId),
      openApprovals: synced((tenantId: string, actorId: string, taskId: string, now: Date) =>
        loadOpenApprovals(tx, tenantId, actorId, taskId, now),
      ),
      standingReceipt: synced((tenantId: string, intentId: string) =>
        standingReceipt(tx, tenantId, intentId),
      ),
      apply: (writes) => this.apply(tx, writes, loaded!.log, learned, batch),
      // destinations are never written by a decision
      subscribers: events.subscribers,
      writeEvent: synced(events.writeEvent),
      markBudget: synced(events.markBudget),
      stageRefusal: synced(events.stageRefusal),
    };
  }

  /**
   * Every sealed outcome: its state change and its journal record, in one statement (the
   * rows are distinct, none reads another's). The log state was read with the decision's
   * state under the tenant lock, and no other write of this transaction has appended since.
   */
  private async apply(
    tx: PgTx,
    p: DecisionWrites,
    log: LogState | undefined,
    learned: SnapshotIdMap,
    batch: DecisionBatch | undefined,
  ): Promise<Appended> {
    const journal = journalWrite(log, p.journal, p.at, sha256);
    const rows = this.rowParts(p);
    if (p.inputs) {
      rows.push(await inputsPart(tx, this.ids, learned, p.tenantId, journal.appended.sequence, p.inputs));
    }
    if (batch?.follows(p)) {
      batch.hold(p, rows, journal);
      return journal.appended;
    }
    await batch?.stop();
    const reserve: WritePart[] = p.reserve
      ? [
          {
            // decide() checked the budget on the state read under the tenant lock; this guards the invariant.
            what: 'the budget reservation',
            sql: `UPDATE tasks SET reserved_micros = reserved_micros + $1
              WHERE tenant_id = $2 AND id = $3 AND reserved_micros + $1 <= budget_micros`,
            params: [p.reserve.amountMicros.toString(), p.tenantId, p.reserve.taskId],
            exactlyOne: true,
          },
        ]
      : [];
    await writeAll(tx, [...reserve, ...rows, ...journalParts(journal)]);
    return journal.appended;
  }

  /** The rows a sealed outcome writes besides its reservation and its journal record. */
  private rowParts(p: DecisionWrites): WritePart[] {
    const t = p.tenantId;
    const parts: WritePart[] = [];
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
    return parts;
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
 * The effect key. A new claim or deferral is a plain INSERT, and a resume's claim or release
 * must find its own deferral: under the tenant lock neither can meet another writer, and if
 * one ever did, the primary key or the guard fails the decision rather than let two intents
 * hold one key.
 */
function effectKeyPart(p: DecisionWrites): WritePart | undefined {
  const k = p.effectKey;
  if (k === undefined) return undefined;
  if (k.op === 'insert') {
    return {
      what: 'the effect key',
      sql: `INSERT INTO effect_keys (tenant_id, task_id, step, state, intent_id, request_digest, updated_at)
        VALUES ($1, $2, $3, $4, $5, $6, $7)`,
      params: [p.tenantId, k.taskId, k.step, k.state, k.intentId, k.requestDigest, k.at],
    };
  }
  const where = 'tenant_id = $1 AND task_id = $2 AND step = $3 AND state = $4 AND intent_id = $5';
  const guard = [p.tenantId, k.taskId, k.step, k.expect.state, k.expect.intentId];
  if (k.op === 'drop') {
    return {
      what: 'the effect key release',
      sql: `DELETE FROM effect_keys WHERE ${where}`,
      params: guard,
      exactlyOne: true,
    };
  }
  return {
    what: 'the deferral this resume holds',
    sql: `UPDATE effect_keys SET state = 'claimed', updated_at = $6 WHERE ${where}`,
    params: [...guard, k.at],
    exactlyOne: true,
  };
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
  return row && { ...row, sequence: Number(row.sequence) };
}
