import { describe, expect, it } from 'vitest';
import type { Actor } from '../../../src/core/actor.js';
import { SvcError } from '../../../src/core/errors.js';
import { receiptList, type ReceiptListOps } from '../../../src/core/receipt-list.js';
import { runSync } from '../../../src/core/use-case.js';

const viewer: Actor = {
  tenantId: 'acme',
  id: 'op',
  kind: 'human',
  roles: ['operator'],
  managerId: null,
  certSubject: null,
  displayName: null,
  createdAt: '2026-03-01T10:00:00.000Z',
};

/** A tenant with one task; `page` records what it was asked for and answers an empty page. */
function memory() {
  const pages: { cursor: unknown; taskId: string | undefined }[] = [];
  const ops: ReceiptListOps = {
    taskExists: (tenantId, taskId) => tenantId === 'acme' && taskId === 'task-1',
    page: (_viewer, cursor, taskId) => {
      pages.push({ cursor, taskId });
      return { items: [] };
    },
  };
  return { ops, pages };
}

describe('receiptList: listing receipts, once for both stores', () => {
  it('reads the page of the whole journal, or of a task the tenant holds', () => {
    const { ops, pages } = memory();
    expect(runSync(receiptList(viewer, { limit: 5 }, {}), ops)).toEqual({ items: [] });
    expect(runSync(receiptList(viewer, { limit: 5, after: 3 }, { taskId: 'task-1' }), ops)).toEqual({
      items: [],
    });
    expect(pages).toEqual([
      { cursor: { limit: 5 }, taskId: undefined },
      { cursor: { limit: 5, after: 3 }, taskId: 'task-1' },
    ]);
  });

  it('refuses a task the tenant does not hold: a typo is not "nothing happened"', () => {
    const { ops, pages } = memory();
    let err: unknown;
    try {
      runSync(receiptList(viewer, { limit: 5 }, { taskId: 'typo' }), ops);
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(SvcError);
    expect(err).toMatchObject({ kind: 'not_found', code: 'not_found', message: 'no such task' });
    expect(pages).toEqual([]);
  });
});
