import type { Actor } from './actor.js';
import { SvcError } from './errors.js';
import type { PublishedReceipt } from './receipt.js';
import { asker, type UseCase } from './use-case.js';

/** Where a page of receipts starts (after a journal sequence) and how many it holds at most. */
export interface ReceiptCursor {
  limit: number;
  after?: number | undefined;
}

/** Receipts in journal order; `next` is the sequence the following page starts after. */
export interface ReceiptPage {
  items: PublishedReceipt[];
  next?: number | undefined;
}

/** The reads listing receipts asks for. */
export interface ReceiptListOps {
  taskExists(tenantId: string, taskId: string): boolean;
  /** a page of the receipts `viewer` may read, of the task when one is named */
  page(viewer: Actor, cursor: ReceiptCursor, taskId: string | undefined): ReceiptPage;
}

const ask = asker<ReceiptListOps>();

/** A page of the receipts `viewer` may read, in journal order, of one task or of the whole journal. */
export function* receiptList(
  viewer: Actor,
  cursor: ReceiptCursor,
  filter: { taskId?: string },
): UseCase<ReceiptListOps, ReceiptPage> {
  // An unknown task is an error, not an empty page: reconciliation must not read a typo as "nothing happened".
  if (filter.taskId !== undefined && !(yield* ask('taskExists', viewer.tenantId, filter.taskId))) {
    throw new SvcError('not_found', 'no such task');
  }
  return yield* ask('page', viewer, cursor, filter.taskId);
}
