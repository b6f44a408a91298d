import { SvcError } from '../../core/errors.js';
import { randomId } from '../../core/ids.js';
import type { SealedReceipt } from '../decision-ports.js';
import type { ExecutionOutcome, ExecutionStore } from '../integration-ports.js';
import { CommitQueue } from './commit-queue.js';
import { ownerAlive, thisProcess, type ExecutionOwner } from './execution-owner.js';
import type { Db } from './database.js';
import { JournalWriter } from './journal.js';
import { writeTransaction } from './write-lock.js';

interface Row {
  tenant_id: string;
  id: string;
  intent_id: string;
  task_id: string;
  step: string;
  actor_id: string;
  capability: string;
  action: string;
  tier: number;
  surface_id: string;
  operation: string;
  credential_ref: string;
  state: 'pending' | 'succeeded' | 'failed' | 'unknown';
  owner_pid: number | null;
  owner_instance: string | null;
}

export const INTERRUPTED_REASON =
  'the daemon stopped while the call to the provider was in flight: the effect may have happened. It was not sent again; reconcile with the provider';

/** Brokered executions after their decision: the provider's outcome and its journal record. */
export class SqliteExecutions implements ExecutionStore {
  private readonly journal: JournalWriter;
  private readonly q;

  constructor(
    private readonly db: Db,
    private readonly clock: () => Date,
    /** shared with the decisions, so outcomes and new decisions ride one fsync */
    private readonly queue: CommitQueue = new CommitQueue(db),
    /** this process: its own pending calls, and other live daemons', are not interrupted */
    private readonly owner: ExecutionOwner = thisProcess(),
  ) {
    this.journal = new JournalWriter(db);
    this.q = {
      one: db.prepare<[string, string], Row>('SELECT * FROM executions WHERE tenant_id = ? AND id = ?'),
      pending: db.prepare<[], Row>("SELECT * FROM executions WHERE state = 'pending' ORDER BY created_at"),
      finish: db.prepare(
        `UPDATE executions SET state = @state, status = @status, effect_id = @effect_id, digest = @digest,
           receipt_id = @receipt_id, finished_at = @at WHERE tenant_id = @tenant_id AND id = @id`,
      ),
    };
  }

  finish(
    tenantId: string,
    executionId: string,
    o: ExecutionOutcome & { sentDigest: string | null },
  ): Promise<SealedReceipt> {
    return this.queue.submit(() => {
      const row = this.q.one.get(tenantId, executionId);
      if (!row) throw new SvcError('not_found', `execution ${executionId} does not exist in this tenant`);
      // 'unknown' is accepted too: start-up recovery may have judged a call that then answered.
      if (row.state !== 'pending' && row.state !== 'unknown') {
        throw new SvcError(
          'conflict',
          `the outcome of execution ${executionId} is already recorded (${row.state})`,
        );
      }
      return this.seal(row, o, { sent_digest: o.sentDigest, recovered: false });
    });
  }

  async markInterrupted(): Promise<number> {
    return writeTransaction(this.db, () => {
      const rows = this.q.pending
        .all()
        .filter((row) => !ownerAlive(this.owner, { pid: row.owner_pid, instance: row.owner_instance }));
      for (const row of rows) {
        this.seal(
          row,
          {
            outcome: 'unknown',
            sent: true,
            status: null,
            effectId: null,
            digest: null,
            bytes: 0,
            error: 'interrupted',
            reason: INTERRUPTED_REASON,
          },
          { recovered: true },
        );
      }
      return rows.length;
    });
  }

  private seal(row: Row, o: ExecutionOutcome, extra: Record<string, unknown>): SealedReceipt {
    const at = this.clock().toISOString();
    const receiptId = randomId('rcp');
    this.q.finish.run({
      state: o.outcome,
      status: o.status,
      effect_id: o.effectId,
      digest: o.digest,
      receipt_id: receiptId,
      at,
      tenant_id: row.tenant_id,
      id: row.id,
    });
    const record = {
      v: 1,
      kind: 'execution',
      receipt_id: receiptId,
      intent_id: row.intent_id,
      execution_id: row.id,
      tenant_id: row.tenant_id,
      actor_id: row.actor_id,
      task_id: row.task_id,
      effect_key_step: row.step,
      capability: row.capability,
      action: row.action,
      surface_id: row.surface_id,
      operation: row.operation,
      // the reference, never the value: which credential acted, for the audit
      credential_ref: row.credential_ref,
      outcome: o.outcome,
      reason: o.reason,
      effect: { status: o.status, digest: o.digest, bytes: o.bytes, sent: o.sent, error: o.error },
      effect_id: o.effectId,
      // executed and seen by the daemon itself, not reported by the agent
      observed: false,
      ...extra,
      occurred_at: at,
    };
    const a = this.journal.append(
      {
        tenantId: row.tenant_id,
        kind: 'execution',
        receiptId,
        taskId: row.task_id,
        intentId: row.intent_id,
        actorId: row.actor_id,
        capability: row.capability,
        tier: Number(row.tier),
        allowed: true,
        grantId: '',
        amountMicros: 0n,
        occurredAt: at,
        record,
      },
      at,
    );
    return { receiptId, sequence: a.sequence, recordHash: a.recordHash, occurredAt: at, record };
  }
}
