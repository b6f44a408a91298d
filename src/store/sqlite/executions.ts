import { SvcError } from '../../core/errors.js';
import { executionRecord } from '../../core/records/execution-record.js';
import { receiptOf } from '../../core/records/sealed-receipt.js';
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
    const record = executionRecord(
      {
        tenantId: row.tenant_id,
        id: row.id,
        intentId: row.intent_id,
        taskId: row.task_id,
        step: row.step,
        actorId: row.actor_id,
        capability: row.capability,
        action: row.action,
        tier: Number(row.tier),
        surfaceId: row.surface_id,
        operation: row.operation,
        credentialRef: row.credential_ref,
      },
      o,
      extra,
      at,
    );
    this.q.finish.run({
      state: o.outcome,
      status: o.status,
      effect_id: o.effectId,
      digest: o.digest,
      receipt_id: record.receiptId,
      at,
      tenant_id: row.tenant_id,
      id: row.id,
    });
    return receiptOf(record, this.journal.append(record, at));
  }
}
