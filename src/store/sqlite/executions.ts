import { finishExecution, sealInterrupted, type ExecutionOps } from '../../core/execution.js';
import { runSync } from '../../core/use-case.js';
import type { SealedReceipt } from '../decision-ports.js';
import { storedExecution, type ExecutionRow } from '../rows/execution.js';
import type { ExecutionOutcome, ExecutionStore } from '../integration-ports.js';
import { CommitQueue } from './commit-queue.js';
import { ownerAlive, thisProcess, type ExecutionOwner } from './execution-owner.js';
import type { Db } from './database.js';
import { JournalWriter } from './journal.js';
import { writeTransaction } from './write-lock.js';

/** Whose call it is: a pending call of a live daemon is not interrupted. */
type Row = ExecutionRow & { owner_pid: number | null; owner_instance: string | null };

/** The reads and writes of an execution's outcome (core/execution.ts decides). */
export function executionOps(db: Db): ExecutionOps {
  const journal = new JournalWriter(db);
  const one = db.prepare<[string, string], Row>('SELECT * FROM executions WHERE tenant_id = ? AND id = ?');
  const finish = db.prepare(
    `UPDATE executions SET state = @state, status = @status, effect_id = @effectId, digest = @digest,
       receipt_id = @receiptId, finished_at = @at WHERE tenant_id = @tenantId AND id = @id AND state = @expected`,
  );
  return {
    execution: (tenantId, executionId) => {
      const row = one.get(tenantId, executionId);
      return row && storedExecution(row);
    },
    finish: (tenantId, id, expected, f) => finish.run({ ...f, tenantId, id, expected }).changes,
    append: (record, at) => journal.append(record, at),
  };
}

/** Brokered executions after their decision: the provider's outcome and its journal record. */
export class SqliteExecutions implements ExecutionStore {
  private readonly q;
  /** the reads and writes core/execution.ts asks for */
  private readonly ops: ExecutionOps;

  constructor(
    private readonly db: Db,
    private readonly clock: () => Date,
    /** shared with the decisions, so outcomes and new decisions ride one fsync */
    private readonly queue: CommitQueue = new CommitQueue(db),
    /** this process: its own pending calls, and other live daemons', are not interrupted */
    private readonly owner: ExecutionOwner = thisProcess(),
  ) {
    this.q = {
      pending: db.prepare<[], Row>("SELECT * FROM executions WHERE state = 'pending' ORDER BY created_at"),
    };
    this.ops = executionOps(db);
  }

  finish(
    tenantId: string,
    executionId: string,
    o: ExecutionOutcome & { sentDigest: string | null },
  ): Promise<SealedReceipt> {
    return this.queue.submit(() => runSync(finishExecution(tenantId, executionId, o, this.clock), this.ops));
  }

  async markInterrupted(): Promise<number> {
    return writeTransaction(this.db, () => {
      const rows = this.q.pending
        .all()
        .filter((row) => !ownerAlive(this.owner, { pid: row.owner_pid, instance: row.owner_instance }));
      for (const row of rows) runSync(sealInterrupted(storedExecution(row), this.clock), this.ops);
      return rows.length;
    });
  }
}
