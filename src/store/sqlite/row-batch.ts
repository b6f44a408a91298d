import type Database from 'better-sqlite3';
import { batchEndOf, type Deferred } from './batch-end.js';
import type { Db } from './database.js';

/** Rows per INSERT statement: few enough to keep each statement's parameters well in bounds. */
const MAX_ROWS = 64;

/**
 * Rows of one table that decisions append and nothing reads before the commit queue's batch
 * ends (batch-end.ts): the Merkle subtrees an append completed, a decision's recorded policy
 * inputs. Written at the batch's end as multi-row INSERTs: one statement for many rows cost
 * about a third less per row than one statement each.
 */
export class RowBatch implements Deferred {
  private rows: unknown[][] = [];
  private readonly statements = new Map<number, Database.Statement>();

  /** `insert` names the table and its columns (`INSERT INTO t (a, b)`), `width` values a row. */
  constructor(
    private readonly db: Db,
    private readonly insert: string,
    private readonly width: number,
  ) {}

  /** A row that waits for the batch's end. */
  add(values: unknown[]): void {
    this.rows.push(this.checked(values));
  }

  /** A row written at once (a job that does not let its writes wait), by the same statements. */
  writeNow(values: unknown[]): void {
    this.statement(1).run(this.checked(values));
  }

  flush(): void {
    if (this.rows.length === 0) return;
    // As the journal's waiting rows (journal.ts): never written once SQLite ended the
    // transaction itself, where each would commit on its own.
    if (!this.db.inTransaction)
      throw new Error('the rows waiting for the batch’s end have no transaction left');
    for (let i = 0; i < this.rows.length; i += MAX_ROWS) {
      const chunk = this.rows.slice(i, i + MAX_ROWS);
      this.statement(chunk.length).run(chunk.flat());
    }
    this.rows = [];
  }

  discard(): void {
    this.rows = [];
  }

  mark(): () => void {
    // A copy, not a length: a job that does not let its writes wait flushes (empties) the
    // batch inside its savepoint, and if it then rolls back, what it flushed waits again.
    const rows = this.rows.slice();
    return () => {
      this.rows = rows;
    };
  }

  private checked(values: unknown[]): unknown[] {
    if (values.length !== this.width)
      throw new RangeError(`a row of ${values.length} values for ${this.width} columns`);
    return values;
  }

  private statement(n: number): Database.Statement {
    let s = this.statements.get(n);
    if (!s) {
      const row = `(${Array.from({ length: this.width }, () => '?').join(', ')})`;
      s = this.db.prepare(`${this.insert} VALUES ${Array.from({ length: n }, () => row).join(', ')}`);
      this.statements.set(n, s);
    }
    return s;
  }
}

const batches = new WeakMap<Db, Map<string, RowBatch>>();

/** The one `RowBatch` of a connection for `insert`, joined to its batch's end. */
export function rowBatchOf(db: Db, insert: string, width: number): RowBatch {
  let byInsert = batches.get(db);
  if (!byInsert) batches.set(db, (byInsert = new Map()));
  let batch = byInsert.get(insert);
  if (!batch) {
    batch = new RowBatch(db, insert, width);
    batchEndOf(db).join(batch);
    byInsert.set(insert, batch);
  }
  return batch;
}
