import { z } from 'zod';
import { SvcError } from '../../core/errors.js';
import type { PublishedReceipt } from '../../core/receipt.js';
import { ErrorBodySchema } from '../../http/openapi.js';
import { defineRoute, type AnyRoute } from '../../http/route.js';
import { pageLimit } from '../../api/page.js';
import { ReceiptView } from '../../api/receipt.js';
import { ReceiptWithProof } from '../../api/receipt-proof.js';
import { receiptProof } from '../../api/receipt-proof-read.js';
import type { ConsoleDeps } from '../deps.js';

/** Journal rows one page request examines at most; the cursor carries on from there. */
export const RECORDS_SCAN_LIMIT = 2000;
const STORE_WINDOW = 200;

const Instant = z.iso.datetime({ offset: true });
const Text = (max: number) => z.string().min(1).max(max);
export const RecordKind = ReceiptView.shape.kind;

const RecordsQuery = z.strictObject({
  kind: RecordKind.optional().describe('only records of this kind'),
  outcome: Text(40).optional().describe('e.g. allowed, refused, deferred, approved, requested, redacted'),
  code: Text(80).optional().describe('only refusals with this code'),
  capability: Text(200).optional(),
  task_id: Text(100).optional(),
  actor_id: Text(100).optional().describe('the actor who acted (for an approval: who decided it)'),
  since: Instant.optional().describe('occurred at or after (RFC 3339)'),
  until: Instant.optional().describe('occurred before (RFC 3339)'),
  q: Text(200)
    .optional()
    .describe(
      'free text, case-insensitive, over the published intent, actor, capability, code and ids (receipt, intent, task, approval, grant, effect, step)',
    ),
  limit: pageLimit(50),
  cursor: z
    .string()
    .regex(/^\d{1,15}$/, { error: 'expected the next_cursor of a previous page (a journal sequence)' })
    .optional()
    .describe('next_cursor of the previous page: the last sequence it examined; older records follow'),
});
type Filter = z.output<typeof RecordsQuery>;

/** The published fields a free-text search looks in: never a private field of the record. */
const searched = (r: PublishedReceipt): (string | null)[] => [
  r.intent,
  r.actor_id,
  r.capability,
  r.code,
  r.receipt_id,
  r.intent_id,
  r.task_id,
  r.approval_id,
  r.grant_id,
  r.effect_id,
  r.effect_key_step,
];

function matches(r: PublishedReceipt, f: Filter): boolean {
  if (f.kind !== undefined && r.kind !== f.kind) return false;
  if (f.outcome !== undefined && r.outcome !== f.outcome) return false;
  if (f.code !== undefined && r.code !== f.code) return false;
  if (f.capability !== undefined && r.capability !== f.capability) return false;
  if (f.actor_id !== undefined && r.actor_id !== f.actor_id) return false;
  const t = Date.parse(r.occurred_at);
  if (f.since !== undefined && t < Date.parse(f.since)) return false;
  if (f.until !== undefined && t >= Date.parse(f.until)) return false;
  if (f.q !== undefined) {
    const q = f.q.toLowerCase();
    if (!searched(r).some((v) => v !== null && v.toLowerCase().includes(q))) return false;
  }
  return true;
}

/**
 * Receipts newest first with the console's filters and search. The store reads windows of
 * the journal below the cursor (by task with a task filter: its index); the other filters
 * and the search run here, on the published fields only, over at most RECORDS_SCAN_LIMIT
 * rows per request. The cursor is the last sequence examined, so paging never uses OFFSET
 * and one request never reads the whole journal.
 */
export function recordRoutes(deps: ConsoleDeps): AnyRoute[] {
  return [
    defineRoute({
      method: 'GET',
      url: '/api/records',
      summary: `receipts the signed-in human may read, newest first, filtered and searched; examines at most ${RECORDS_SCAN_LIMIT} records per request (follow next_cursor)`,
      tag: 'Console records',
      auth: 'token',
      query: RecordsQuery,
      responses: {
        200: {
          description: 'matching receipts, newest first, and where to continue',
          schema: z.object({
            items: z.array(ReceiptView),
            next_cursor: z
              .string()
              .nullable()
              .describe('the last sequence examined; null when no older record remains'),
            scanned: z.number().describe('journal records examined at most by this request'),
          }),
        },
        404: { description: 'task_id names no task of this tenant', schema: ErrorBodySchema },
      },
      handler: async ({ caller, query }) => {
        if (query.task_id !== undefined && !(await deps.store.tasks.get(caller.tenantId, query.task_id))) {
          throw new SvcError('not_found', 'task_id: no such task in this tenant', { field: 'task_id' });
        }
        const items: PublishedReceipt[] = [];
        let before = query.cursor === undefined ? undefined : Number(query.cursor);
        let scanned = 0;
        for (;;) {
          const span = Math.min(STORE_WINDOW, RECORDS_SCAN_LIMIT - scanned);
          const window = await deps.store.receipts.newest(
            caller.actor,
            { before, span },
            query.task_id !== undefined ? { taskId: query.task_id } : {},
          );
          scanned += span;
          for (const [i, r] of window.items.entries()) {
            if (!matches(r, query)) continue;
            items.push(r);
            if (items.length === query.limit) {
              const last = i === window.items.length - 1 && window.next === undefined;
              return { items, next_cursor: last ? null : String(r.sequence), scanned };
            }
          }
          before = window.next;
          if (before === undefined) return { items, next_cursor: null, scanned };
          if (scanned >= RECORDS_SCAN_LIMIT) return { items, next_cursor: String(before), scanned };
        }
      },
    }),
    defineRoute({
      method: 'GET',
      url: '/api/records/:id',
      summary: 'one receipt: the sealed fields as published',
      tag: 'Console records',
      auth: 'token',
      params: z.strictObject({ id: z.string().min(1).max(100) }),
      responses: {
        200: { description: 'the receipt', schema: ReceiptView },
        404: { description: 'no such receipt visible to the caller', schema: ErrorBodySchema },
      },
      handler: async ({ caller, params }) => {
        const r = await deps.store.receipts.get(caller.actor, params.id);
        if (!r) throw new SvcError('not_found', 'no such receipt');
        return r;
      },
    }),
    defineRoute({
      method: 'GET',
      url: '/api/records/:id/proof',
      summary:
        "one receipt's entry, RFC 6962 inclusion proof and latest signed head: what `svc verify receipt` checks offline (the daemon's GET /v1/receipts/{id}?proof=true, same reader rule)",
      tag: 'Console records',
      auth: 'token',
      params: z.strictObject({ id: z.string().min(1).max(100) }),
      responses: {
        200: {
          description:
            'the receipt with its proof, the same body as the daemon answers (a file `svc verify receipt` reads); proof is null until an anchor covers the entry',
          schema: ReceiptWithProof,
        },
        404: { description: 'no such receipt visible to the caller', schema: ErrorBodySchema },
      },
      handler: async ({ caller, params }) => {
        const receipt = await deps.store.receipts.get(caller.actor, params.id);
        if (!receipt) throw new SvcError('not_found', 'no such receipt');
        return { ...receipt, proof: await receiptProof(deps.store, caller.actor, params.id) };
      },
    }),
  ];
}
