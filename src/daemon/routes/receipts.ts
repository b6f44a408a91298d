import { z } from 'zod';
import { SvcError } from '../../core/errors.js';
import type { DaemonDeps } from '../deps.js';
import { ErrorBodySchema } from '../../http/openapi.js';
import { defineRoute, type AnyRoute } from '../../http/route.js';
import { decodeCursor, PageQuery, pageOf, wirePage } from '../../api/page.js';
import { ReceiptView } from '../../api/receipt.js';
import { ReceiptWithProof } from '../../api/receipt-proof.js';
import { receiptProof } from '../../api/receipt-proof-read.js';
import { IdParams } from './tasks.js';

const TaskId = z.string().min(1).max(200);
const ReceiptQuery = PageQuery.extend({
  task_id: TaskId.optional().describe(
    "only this task's receipts: how a client reconciles an unknown outcome",
  ),
  work_id: TaskId.optional()
    .meta({ deprecated: true })
    .describe('deprecated alias of task_id (the earlier variant)'),
});
const SCOPE = 'receipts';
const ReceiptReadQuery = z
  .object({
    proof: z
      .enum(['true', 'false'])
      .optional()
      .describe('true: add the entry, its RFC 6962 inclusion proof and the latest signed head'),
  })
  .strict();

const READERS =
  'operators, administrators and auditors read every receipt of the tenant; others the receipts they are the actor of and those of tasks they sponsor';

/** Receipts: the published projection of journal records, without the caller's correlation identifiers. */
export function receiptRoutes(deps: DaemonDeps): AnyRoute[] {
  return [
    defineRoute({
      method: 'GET',
      url: '/v1/receipts',
      operationId: 'receipts',
      summary: `list receipts in journal order; paged; filter task_id; ${READERS}`,
      tag: 'Evidence',
      auth: 'token',
      query: ReceiptQuery,
      responses: {
        200: { description: 'a page of receipts', schema: pageOf(ReceiptView) },
        404: { description: 'task_id names no task of this tenant', schema: ErrorBodySchema },
      },
      handler: async ({ caller, query }) => {
        if (query.task_id !== undefined && query.work_id !== undefined && query.task_id !== query.work_id) {
          throw new SvcError('invalid_request', 'work_id: a deprecated alias of task_id; send one of them', {
            field: 'work_id',
          });
        }
        const taskId = query.task_id ?? query.work_id;
        const after =
          query.cursor === undefined ? undefined : decodeCursor(query.cursor, z.number().int().min(0), SCOPE);
        const page = await deps.store.receipts.list(
          caller.actor,
          { limit: query.limit, after },
          taskId !== undefined ? { taskId } : {},
        );
        return wirePage(page, SCOPE);
      },
    }),
    defineRoute({
      method: 'GET',
      url: '/v1/receipts/:id',
      operationId: 'receipt',
      summary: `read a receipt; ${READERS}`,
      tag: 'Evidence',
      auth: 'token',
      params: IdParams,
      query: ReceiptReadQuery,
      responses: {
        200: { description: 'the receipt; with proof=true also its proof', schema: ReceiptWithProof },
        404: {
          description: 'no such receipt in this tenant, or not one the caller may read',
          schema: ErrorBodySchema,
        },
      },
      handler: async ({ caller, params, query }) => {
        const receipt = await deps.store.receipts.get(caller.actor, params.id);
        if (!receipt) throw new SvcError('not_found', 'no such receipt');
        if (query.proof !== 'true') return receipt;
        return { ...receipt, proof: await receiptProof(deps.store, caller.actor, params.id) };
      },
    }),
  ];
}
