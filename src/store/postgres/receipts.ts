import type { Actor } from '../../core/actor.js';
import { readsWholeTenant } from '../../core/readers.js';
import type { PublishedReceipt } from '../../core/receipt.js';
import { receiptList, type ReceiptListOps } from '../../core/receipt-list.js';
import { runAsync, type Async } from '../../core/use-case.js';
import type { EntryLine } from '../../evidence/export-line.js';
import type { Keyset, KeysetPage, Receipts } from '../query-ports.js';
import { entryLineOf, publish, type EntryRow, type ReceiptRow } from '../rows/journal-entry.js';
import { keysetPage } from '../rows/keyset.js';
import { newestWindow } from '../rows/receipt-window.js';
import type { PgDb } from './database.js';

/** A journal row with every column both a receipt and an entry line are made of. */
type JournalSelectRow = ReceiptRow & EntryRow;

const COLUMNS = `j.tenant_id, j.receipt_id, j.sequence, j.kind, j.task_id, j.intent_id, j.actor_id, j.capability,
  j.tier, j.allowed, j.grant_id, j.amount_micros, j.occurred_at, j.linked_at, j.record_hash, j.chain_hash, j.leaf,
  j.record, j.tombstone, (SELECT d.policy_version FROM decision_inputs d WHERE d.tenant_id = j.tenant_id AND d.sequence = j.sequence)
  AS policy_version`;

// A receipt is the viewer's when the viewer acted, or when it belongs to a task the viewer sponsors.
// $1 tenant, $2 reads the whole tenant, $3 viewer.
const READABLE = `($2 OR j.actor_id = $3 OR EXISTS (SELECT 1 FROM tasks t
  WHERE t.tenant_id = j.tenant_id AND t.id = j.task_id AND t.sponsor_id = $3))`;

/** The reads core/receipt-list.ts asks for. */
function receiptListOps(db: PgDb): Async<ReceiptListOps> {
  return {
    taskExists: async (tenantId, taskId) =>
      (await db.query('SELECT 1 FROM tasks WHERE tenant_id = $1 AND id = $2', [tenantId, taskId])).length > 0,
    page: async (viewer, page, taskId) => {
      const params = [viewer.tenantId, readsWholeTenant(viewer), viewer.id, page.after ?? 0, page.limit + 1];
      const rows =
        taskId === undefined
          ? await db.query<JournalSelectRow>(
              `SELECT ${COLUMNS} FROM journal j WHERE j.tenant_id = $1 AND j.sequence > $4 AND ${READABLE}
               ORDER BY j.sequence LIMIT $5`,
              params,
            )
          : await db.query<JournalSelectRow>(
              `SELECT ${COLUMNS} FROM journal j WHERE j.tenant_id = $1 AND j.task_id = $6 AND j.sequence > $4
                 AND ${READABLE}
               ORDER BY j.sequence LIMIT $5`,
              [...params, taskId],
            );
      return keysetPage(rows, page.limit, publish, (r) => r.sequence);
    },
  };
}

export class PgReceipts implements Receipts {
  private readonly ops: Async<ReceiptListOps>;

  constructor(private readonly db: PgDb) {
    this.ops = receiptListOps(db);
  }

  async list(
    viewer: Actor,
    page: Keyset<number>,
    filter: { taskId?: string },
  ): Promise<KeysetPage<PublishedReceipt, number>> {
    return runAsync(receiptList(viewer, page, filter), this.ops);
  }

  async get(viewer: Actor, receiptId: string): Promise<PublishedReceipt | undefined> {
    const row = await this.one(viewer, receiptId);
    return row && publish(row);
  }

  async newest(
    viewer: Actor,
    window: { before?: number | undefined; span: number },
    filter: { taskId?: string },
  ): Promise<{ items: PublishedReceipt[]; next?: number | undefined }> {
    // The window is taken before the read rule, as in SQLite: it bounds the rows examined.
    const params = [
      viewer.tenantId,
      readsWholeTenant(viewer),
      viewer.id,
      window.before ?? Number.MAX_SAFE_INTEGER,
      window.span,
    ];
    const rows = await this.db.query<JournalSelectRow & { readable: boolean }>(
      `SELECT ${COLUMNS}, ${READABLE} AS readable FROM journal j
       WHERE j.tenant_id = $1 AND j.sequence < $4 ${filter.taskId === undefined ? '' : 'AND j.task_id = $6'}
       ORDER BY j.sequence DESC LIMIT $5`,
      filter.taskId === undefined ? params : [...params, filter.taskId],
    );
    return newestWindow(rows, window.span);
  }

  async entryOf(viewer: Actor, receiptId: string): Promise<EntryLine | undefined> {
    const row = await this.one(viewer, receiptId);
    return row && entryLineOf(row);
  }

  private async one(viewer: Actor, receiptId: string): Promise<JournalSelectRow | undefined> {
    const [row] = await this.db.query<JournalSelectRow>(
      `SELECT ${COLUMNS} FROM journal j WHERE j.tenant_id = $1 AND j.receipt_id = $4 AND ${READABLE}`,
      [viewer.tenantId, readsWholeTenant(viewer), viewer.id, receiptId],
    );
    return row;
  }
}
