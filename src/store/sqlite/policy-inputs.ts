import type { RecordedInputs } from '../../core/decision/recorded-inputs.js';
import { sha256 } from '../../evidence/node-crypto.js';
import type { RecordedDecision, RecordedDecisions, ReplayRange } from '../replay-ports.js';
import type { SnapshotIdMap } from '../rows/policy-inputs.js';
import {
  bodiesOf,
  INPUTS_COLUMNS,
  inputsValues,
  RECORDED_COLUMNS,
  SnapshotIds,
  toRecordedDecision,
  type RecordedRow,
} from '../rows/policy-inputs.js';
import { batchEndOf, type BatchEnd } from './batch-end.js';
import { openDatabase, type Db } from './database.js';
import { rowBatchOf, type RowBatch } from './row-batch.js';

const INSERT_INPUTS = `INSERT INTO decision_inputs (${INPUTS_COLUMNS})`;
const INPUTS_WIDTH = INPUTS_COLUMNS.split(',').length;

/**
 * Writes what a decision's policy step was evaluated with, inside the decision's
 * transaction. A body seen before (held in `ids`) costs nothing but its id; a new one is
 * looked up by its hash and, if absent, inserted under the tenant's next id (the write
 * transaction is the only writer, so the next id is free).
 */
export class SqliteInputsWriter {
  private readonly q;
  /** the ids the running job learned; handed to `ids.remember` once its transaction committed */
  private learning: SnapshotIdMap | undefined;

  private readonly end: BatchEnd;
  private readonly rows: RowBatch;

  constructor(
    db: Db,
    private readonly ids: SnapshotIds = new SnapshotIds(),
  ) {
    this.end = batchEndOf(db);
    this.rows = rowBatchOf(db, INSERT_INPUTS, INPUTS_WIDTH);
    this.q = {
      find: db
        .prepare<[string, Uint8Array], number>(
          'SELECT id FROM policy_input_snapshots WHERE tenant_id = ? AND hash = ?',
        )
        .pluck(),
      add: db
        .prepare<[string, Uint8Array, string, string], number>(
          `INSERT INTO policy_input_snapshots (tenant_id, id, hash, body)
           SELECT ?, coalesce(max(id), 0) + 1, ?, ? FROM policy_input_snapshots WHERE tenant_id = ?
           RETURNING id`,
        )
        .pluck(),
    };
  }

  /** Run one job of the commit queue, learning the ids it writes or reads. */
  job<T>(learned: SnapshotIdMap, work: () => T): T {
    // A job run again (its batch rolled back) learns afresh: what it learned before may be gone.
    learned.clear();
    this.learning = learned;
    try {
      return work();
    } finally {
      this.learning = undefined;
    }
  }

  /** Hold what a job learned: its transaction has committed. */
  committed(learned: SnapshotIdMap): void {
    if (learned.size > 0) this.ids.remember(learned);
  }

  write(tenantId: string, sequence: number, inputs: RecordedInputs): void {
    const [a, c, d] = bodiesOf(inputs);
    const refs = [this.idOf(tenantId, a), this.idOf(tenantId, c), this.idOf(tenantId, d)] as const;
    const values = inputsValues(tenantId, sequence, inputs, refs);
    // In a decision's job the row waits for the batch's end (row-batch.ts): nothing reads it
    // before a replay, long after. The snapshot bodies it names are written now, once each.
    if (this.end.deferring) this.rows.add(values);
    else this.rows.writeNow(values);
  }

  private idOf(tenantId: string, body: string): number {
    const held = this.ids.get(tenantId, body) ?? this.learning?.get(tenantId, body);
    if (held !== undefined) return held;
    const hash = sha256(new TextEncoder().encode(body));
    const id = this.q.find.get(tenantId, hash) ?? this.q.add.get(tenantId, hash, body, tenantId)!;
    this.learning?.set(tenantId, body, id);
    return id;
  }
}

const PAGE = 2000;

/**
 * Recorded decisions read from a SQLite file opened read-only: the data dir's database
 * while a daemon runs (WAL readers never block it), or a backup's copy. Nothing is written,
 * not even a migration: a file from before inputs were recorded has no `decision_inputs`
 * table, and then every decision reads as unrecorded.
 */
export class SqliteRecordedDecisions implements RecordedDecisions {
  private readonly db: Db;
  private readonly recorded: boolean;

  constructor(file: string) {
    this.db = openDatabase(file, { readonly: true });
    this.recorded =
      this.db
        .prepare("SELECT count(*) FROM sqlite_master WHERE type = 'table' AND name = 'decision_inputs'")
        .pluck()
        .get() === 1;
  }

  async tenantExists(tenantId: string): Promise<boolean> {
    return this.db.prepare('SELECT 1 FROM tenants WHERE id = ?').get(tenantId) !== undefined;
  }

  async verbs(tenantId: string): Promise<string[]> {
    const verbs = new Set<string>();
    for (const r of this.db
      .prepare('SELECT actions FROM capabilities WHERE tenant_id = ?')
      .pluck()
      .all(tenantId))
      for (const v of JSON.parse(r as string) as string[]) verbs.add(v);
    if (this.recorded) {
      for (const a of this.db
        .prepare('SELECT DISTINCT action FROM decision_inputs WHERE tenant_id = ?')
        .pluck()
        .all(tenantId))
        verbs.add(a as string);
    }
    return [...verbs];
  }

  async snapshots(tenantId: string): Promise<Map<number, string>> {
    if (!this.recorded) return new Map();
    const rows = this.db
      .prepare('SELECT id, body FROM policy_input_snapshots WHERE tenant_id = ?')
      .all(tenantId) as { id: number; body: string }[];
    return new Map(rows.map((r) => [r.id, r.body]));
  }

  async *decisions(tenantId: string, range: ReplayRange, pageSize = PAGE): AsyncIterable<RecordedDecision[]> {
    // an integer from 1 to PAGE: it is written into the statement
    const limit = Math.min(PAGE, Math.max(1, Math.trunc(pageSize) || PAGE));
    const inputs = this.recorded
      ? 'LEFT JOIN decision_inputs d ON d.tenant_id = j.tenant_id AND d.sequence = j.sequence'
      : `LEFT JOIN (SELECT NULL AS policy_version, NULL AS actor, NULL AS capability, NULL AS determining,
           NULL AS action, NULL AS amount_micros, NULL AS brokered, NULL AS now_epoch_s, NULL AS approval_tier,
           NULL AS allow, NULL AS no_policy) d ON 1`;
    const where = [
      'j.tenant_id = @tenant',
      "j.kind = 'decision'",
      'j.sequence > @after',
      ...(range.toSeq !== undefined ? ['j.sequence <= @to'] : []),
      ...(range.since !== undefined ? ['j.occurred_at >= @since'] : []),
      ...(range.taskId !== undefined ? ['j.task_id = @task'] : []),
    ];
    const page = this.db
      .prepare(
        `SELECT ${RECORDED_COLUMNS},
           CASE WHEN d.policy_version IS NULL THEN json_extract(j.record, '$.code') END AS code
         FROM journal j ${inputs} WHERE ${where.join(' AND ')} ORDER BY j.sequence LIMIT ${limit}`,
      )
      .safeIntegers(true);
    let after = Math.max(0, (range.fromSeq ?? 1) - 1);
    for (;;) {
      const rows = page.all({
        tenant: tenantId,
        after,
        ...(range.toSeq !== undefined ? { to: range.toSeq } : {}),
        ...(range.since !== undefined ? { since: range.since } : {}),
        ...(range.taskId !== undefined ? { task: range.taskId } : {}),
      }) as RecordedRow[];
      if (rows.length === 0) return;
      const batch = rows.map(toRecordedDecision);
      after = batch[batch.length - 1]!.sequence;
      yield batch;
      if (rows.length < limit) return;
    }
  }

  async close(): Promise<void> {
    this.db.close();
  }
}
