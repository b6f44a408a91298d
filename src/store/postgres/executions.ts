import {
  finishExecution,
  sealInterrupted,
  type ExecutionOps,
  type ReplicaReleaseMark,
} from '../../core/execution.js';
import { runAsync, type Async } from '../../core/use-case.js';
import type { SealedReceipt } from '../decision-ports.js';
import { storedExecution, type ExecutionRow } from '../rows/execution.js';
import type { ExecutionOutcome, ExecutionStore } from '../integration-ports.js';
import type { PgCommitQueue } from './commit-queue.js';
import type { PgDb, PgTx } from './database.js';
import { appendJournal } from './journal.js';
import { lockTenants } from './locks.js';
import { ReplicaClaim, type ReplicaOwner } from './replica.js';

/** The reads and writes of an execution's outcome in one tenant transaction (core/execution.ts decides). */
export function executionOpsIn(tx: PgTx): Async<ExecutionOps> {
  return {
    execution: async (tenantId, executionId) => {
      const [row] = await tx.query<ExecutionRow>(
        'SELECT * FROM executions WHERE tenant_id = $1 AND id = $2',
        [tenantId, executionId],
      );
      return row && storedExecution(row);
    },
    finish: async (tenantId, id, expected, f) =>
      (
        await tx.query(
          `UPDATE executions SET state = $1, status = $2, effect_id = $3, digest = $4, receipt_id = $5, finished_at = $6
           WHERE tenant_id = $7 AND id = $8 AND state = $9 RETURNING 1`,
          [f.state, f.status, f.effectId, f.digest, f.receiptId, f.at, tenantId, id, expected],
        )
      ).length,
    append: (record, at) => appendJournal(tx, record, at),
  };
}

/** Brokered executions after their decision: the provider's outcome and its journal record. */
export class PgExecutions implements ExecutionStore {
  private claim: ReplicaClaim | undefined;

  constructor(
    private readonly db: PgDb,
    private readonly clock: () => Date,
    /** shared with the decisions, so outcomes and new decisions ride one commit */
    private readonly queue: PgCommitQueue,
    private readonly owner: ReplicaOwner,
  ) {}

  finish(
    tenantId: string,
    executionId: string,
    o: ExecutionOutcome & { sentDigest: string | null },
  ): Promise<SealedReceipt> {
    return this.queue.submit(tenantId, (tx) =>
      runAsync(finishExecution(tenantId, executionId, o, this.clock), executionOpsIn(tx)),
    );
  }

  /**
   * Start-up: the calls this replica's previous life left pending (same replica id) were
   * interrupted mid-call; other replicas' rows are theirs to judge. The replica id is held
   * from here until the store closes (replica.ts), so two live daemons never share one.
   * Rows a SQLite daemon left pending (owner `dmn_…`, copied by `svc store migrate`, or none
   * recorded) have no replica to come back for them: their process is gone, since a SQLite
   * daemon never writes to PostgreSQL, so any replica judges them.
   */
  async markInterrupted(): Promise<number> {
    this.claim ??= await ReplicaClaim.take(this.db, this.owner);
    const mine =
      "state = 'pending' AND (owner_instance = $1 OR owner_instance IS NULL OR owner_instance LIKE 'dmn\\_%')";
    return (await sealPending(this.db, this.clock, mine, [this.owner.replicaId])).length;
  }

  /** The claim on this replica's id, once start-up took it (the heartbeat runs on its connection). */
  get heldClaim(): ReplicaClaim | undefined {
    return this.claim;
  }

  /** Give the replica id back (the store is closing). */
  async release(): Promise<void> {
    const claim = this.claim;
    this.claim = undefined;
    await claim?.release();
  }
}

/** One call sealed by recovery or release: where its record went. */
export interface SealedPending {
  tenantId: string;
  executionId: string;
  intentId: string;
  receipt: SealedReceipt;
}

/**
 * Seal every pending execution that `where` selects as interrupted (core/execution.ts), in
 * one transaction holding the tenant locks of all of them. Start-up recovery and the release
 * of a replica gone for good differ only in which rows they select and in the `release`
 * mark. `then` runs in the same transaction, after the seals.
 */
export async function sealPending(
  db: PgDb,
  clock: () => Date,
  where: string,
  params: unknown[],
  release?: ReplicaReleaseMark,
  then?: (tx: PgTx) => Promise<void>,
): Promise<SealedPending[]> {
  const tenants = await db.query<{ tenant_id: string }>(
    `SELECT DISTINCT tenant_id FROM executions WHERE ${where}`,
    params,
  );
  if (tenants.length === 0 && then === undefined) return [];
  return db.tx(async (tx) => {
    await lockTenants(
      tx,
      tenants.map((t) => t.tenant_id),
    );
    const rows = await tx.query<ExecutionRow>(
      `SELECT * FROM executions WHERE ${where} ORDER BY created_at, id`,
      params,
    );
    const locked = new Set(tenants.map((t) => t.tenant_id));
    const ops = executionOpsIn(tx);
    const sealed: SealedPending[] = [];
    for (const row of rows) {
      if (!locked.has(row.tenant_id)) continue; // its tenant is not locked: left for the next run
      const receipt = await runAsync(sealInterrupted(storedExecution(row), clock, release), ops);
      sealed.push({ tenantId: row.tenant_id, executionId: row.id, intentId: row.intent_id, receipt });
    }
    await then?.(tx);
    return sealed;
  });
}
