import type { Actor } from '../../core/actor.js';
import { readsWholeTenant } from '../../core/readers.js';
import type { PublishedReceipt } from '../../core/receipt.js';
import { receiptList, type ReceiptListOps } from '../../core/receipt-list.js';
import { runSync } from '../../core/use-case.js';
import type { Keyset, KeysetPage, Receipts } from '../query-ports.js';
import type { EntryLine } from '../../evidence/export-line.js';
import type { Db } from './database.js';
import { entryLineOf, publish, type EntryRow, type ReceiptRow } from '../rows/journal-entry.js';
import { ENTRY_LINE_COLUMNS } from './journal-export.js';
import { keysetPage } from '../rows/keyset.js';
import { newestWindow } from '../rows/receipt-window.js';

interface PageParams {
  tenant: string;
  all: number;
  viewer: string;
  after: number;
  limit: number;
}

const COLUMNS = `j.receipt_id, j.sequence, j.kind, j.task_id, j.intent_id, j.actor_id, j.capability, j.allowed,
  j.grant_id, j.amount_micros, j.occurred_at, j.linked_at, j.record_hash, j.leaf, j.record, j.tombstone,
  (SELECT d.policy_version FROM decision_inputs d WHERE d.tenant_id = j.tenant_id AND d.sequence = j.sequence)
  AS policy_version`;

// A receipt is the viewer's when the viewer acted, or when it belongs to a task the viewer sponsors.
const READABLE = `(@all = 1 OR j.actor_id = @viewer OR EXISTS (SELECT 1 FROM tasks t
  WHERE t.tenant_id = j.tenant_id AND t.id = j.task_id AND t.sponsor_id = @viewer))`;

// Two statements rather than `(@task IS NULL OR ...)`: SQLite plans once per statement, and an OR
// on a parameter hides the task from the planner, which then walks the whole tenant's journal.
// Sequences start at 1, so `after` = 0 reads from the start and the range stays indexable.
export const RECEIPTS_PAGE_SQL = `SELECT ${COLUMNS} FROM journal j
  WHERE j.tenant_id = @tenant AND j.sequence > @after AND ${READABLE}
  ORDER BY j.sequence LIMIT @limit`;

/** Served by `journal_by_task (tenant_id, task_id, sequence)`: one task's rows, in order. */
export const RECEIPTS_BY_TASK_SQL = `SELECT ${COLUMNS} FROM journal j
  WHERE j.tenant_id = @tenant AND j.task_id = @task AND j.sequence > @after AND ${READABLE}
  ORDER BY j.sequence LIMIT @limit`;

interface WindowParams {
  tenant: string;
  all: number;
  viewer: string;
  before: number;
  span: number;
}

// The window is taken before the read rule, so it bounds the rows examined for every viewer;
// `readable` says which of them the viewer may see. Newest first along the primary key (or
// journal_by_task), so a window costs `span` index steps whatever the journal's size.
const NEWEST_SQL = `SELECT ${COLUMNS}, ${READABLE} AS readable FROM journal j
  WHERE j.tenant_id = @tenant AND j.sequence < @before
  ORDER BY j.sequence DESC LIMIT @span`;
const NEWEST_BY_TASK_SQL = `SELECT ${COLUMNS}, ${READABLE} AS readable FROM journal j
  WHERE j.tenant_id = @tenant AND j.task_id = @task AND j.sequence < @before
  ORDER BY j.sequence DESC LIMIT @span`;

type WindowRow = ReceiptRow & { readable: bigint };

export class SqliteReceipts implements Receipts {
  private readonly q;
  /** the reads core/receipt-list.ts asks for */
  private readonly ops: ReceiptListOps;

  constructor(db: Db) {
    this.q = {
      page: db.prepare<[PageParams], ReceiptRow>(RECEIPTS_PAGE_SQL).safeIntegers(true),
      byTask: db
        .prepare<[PageParams & { task: string }], ReceiptRow>(RECEIPTS_BY_TASK_SQL)
        .safeIntegers(true),
      one: db
        .prepare<[Omit<PageParams, 'after' | 'limit'> & { receipt: string }], ReceiptRow>(
          `SELECT ${COLUMNS} FROM journal j WHERE j.tenant_id = @tenant AND j.receipt_id = @receipt AND ${READABLE}`,
        )
        .safeIntegers(true),
      entry: db
        .prepare<[Omit<PageParams, 'task' | 'after' | 'limit'> & { receipt: string }], EntryRow>(
          `SELECT ${ENTRY_LINE_COLUMNS} FROM journal j WHERE j.tenant_id = @tenant AND j.receipt_id = @receipt AND ${READABLE}`,
        )
        .safeIntegers(true),
      newest: db.prepare<[WindowParams], WindowRow>(NEWEST_SQL).safeIntegers(true),
      newestByTask: db
        .prepare<[WindowParams & { task: string }], WindowRow>(NEWEST_BY_TASK_SQL)
        .safeIntegers(true),
      task: db
        .prepare<[string, string], number>(
          'SELECT EXISTS (SELECT 1 FROM tasks WHERE tenant_id = ? AND id = ?)',
        )
        .pluck(),
    };
    const q = this.q;
    this.ops = {
      taskExists: (tenantId, taskId) => q.task.get(tenantId, taskId) === 1,
      page: (viewer, page, taskId) => {
        const params: PageParams = {
          tenant: viewer.tenantId,
          all: readsWholeTenant(viewer) ? 1 : 0,
          viewer: viewer.id,
          after: page.after ?? 0,
          limit: page.limit + 1,
        };
        const rows = taskId === undefined ? q.page.all(params) : q.byTask.all({ ...params, task: taskId });
        return keysetPage(rows, page.limit, publish, (r) => r.sequence);
      },
    };
  }

  async list(
    viewer: Actor,
    page: Keyset<number>,
    filter: { taskId?: string },
  ): Promise<KeysetPage<PublishedReceipt, number>> {
    return runSync(receiptList(viewer, page, filter), this.ops);
  }

  async get(viewer: Actor, receiptId: string): Promise<PublishedReceipt | undefined> {
    const row = this.q.one.get({
      tenant: viewer.tenantId,
      all: readsWholeTenant(viewer) ? 1 : 0,
      viewer: viewer.id,
      receipt: receiptId,
    });
    return row && publish(row);
  }

  async newest(
    viewer: Actor,
    window: { before?: number | undefined; span: number },
    filter: { taskId?: string },
  ): Promise<{ items: PublishedReceipt[]; next?: number | undefined }> {
    const params: WindowParams = {
      tenant: viewer.tenantId,
      all: readsWholeTenant(viewer) ? 1 : 0,
      viewer: viewer.id,
      before: window.before ?? Number.MAX_SAFE_INTEGER,
      span: window.span,
    };
    const rows =
      filter.taskId === undefined
        ? this.q.newest.all(params)
        : this.q.newestByTask.all({ ...params, task: filter.taskId });
    return newestWindow(rows, window.span);
  }

  async entryOf(viewer: Actor, receiptId: string): Promise<EntryLine | undefined> {
    const row = this.q.entry.get({
      tenant: viewer.tenantId,
      all: readsWholeTenant(viewer) ? 1 : 0,
      viewer: viewer.id,
      receipt: receiptId,
    });
    return row && entryLineOf(row);
  }
}
