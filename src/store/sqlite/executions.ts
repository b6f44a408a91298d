import { executionRecord } from '../../core/records/execution-record.js';
import { receiptOf } from '../../core/records/sealed-receipt.js';
import type { SealedReceipt } from '../decision-ports.js';
import { checkFinishable, executionSubject, INTERRUPTED, type ExecutionRow } from '../rows/execution.js';
import type { ExecutionOutcome, ExecutionStore } from '../integration-ports.js';
import { CommitQueue } from './commit-queue.js';
import { ownerAlive, thisProcess, type ExecutionOwner } from './execution-owner.js';
import type { Db } from './database.js';
import { JournalWriter } from './journal.js';
import { writeTransaction } from './write-lock.js';

/** Whose call it is: a pending call of a live daemon is not interrupted. */
type Row = ExecutionRow & { owner_pid: number | null; owner_instance: string | null };

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
      return this.seal(checkFinishable(row, executionId), o, { sent_digest: o.sentDigest, recovered: false });
    });
  }

  async markInterrupted(): Promise<number> {
    return writeTransaction(this.db, () => {
      const rows = this.q.pending
        .all()
        .filter((row) => !ownerAlive(this.owner, { pid: row.owner_pid, instance: row.owner_instance }));
      for (const row of rows) {
        this.seal(row, INTERRUPTED, { recovered: true });
      }
      return rows.length;
    });
  }

  private seal(row: ExecutionRow, o: ExecutionOutcome, extra: Record<string, unknown>): SealedReceipt {
    const at = this.clock().toISOString();
    const record = executionRecord(executionSubject(row), o, extra, at);
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
