import { z } from 'zod';
import { SvcError } from '../../core/errors.js';
import type { PublishedReceipt } from '../../core/receipt.js';
import { ErrorBodySchema } from '../../http/openapi.js';
import { defineRoute, type AnyRoute } from '../../http/route.js';
import { pageLimit } from '../../api/page.js';
import { ReceiptView } from '../../api/receipt.js';
import type { ConsoleDeps } from '../deps.js';

/** Journal rows one page request examines at most; the cursor carries on from there. */
export const RECORDS_SCAN_LIMIT = 2000;
const STORE_PAGE = 200;

const Instant = z.iso.datetime({ offset: true });
const RecordsQuery = z.strictObject({
  task_id: z.string().min(1).max(100).optional(),
  capability: z.string().min(1).max(200).optional(),
  outcome: z.string().min(1).max(40).optional().describe('e.g. allowed, refused, deferred, redacted'),
  since: Instant.optional().describe('occurred at or after (RFC 3339)'),
  until: Instant.optional().describe('occurred before (RFC 3339)'),
  limit: pageLimit(50),
  cursor: z
    .string()
    .regex(/^\d{1,15}$/)
    .optional()
    .describe('next_cursor of the previous page'),
});
type Filter = z.output<typeof RecordsQuery>;

function matches(r: PublishedReceipt, f: Filter): boolean {
  if (f.capability !== undefined && r.capability !== f.capability) return false;
  if (f.outcome !== undefined && r.outcome !== f.outcome) return false;
  const t = Date.parse(r.occurred_at);
  if (f.since !== undefined && t < Date.parse(f.since)) return false;
  if (f.until !== undefined && t >= Date.parse(f.until)) return false;
  return true;
}

/**
 * Receipts with the console's filters. The store filters by task; capability, outcome and
 * time are applied here over at most RECORDS_SCAN_LIMIT rows per request, and the cursor
 * says where the next request continues, so one request never reads the whole journal.
 */
export function recordRoutes(deps: ConsoleDeps): AnyRoute[] {
  return [
    defineRoute({
      method: 'GET',
      url: '/api/records',
      summary: `receipts the signed-in human may read, in journal order, filtered; scans at most ${RECORDS_SCAN_LIMIT} records per request (follow next_cursor)`,
      tag: 'Console records',
      auth: 'token',
      query: RecordsQuery,
      responses: {
        200: {
          description: 'matching receipts and where to continue',
          schema: z.object({
            items: z.array(ReceiptView),
            next_cursor: z.string().nullable(),
            scanned: z.number(),
          }),
        },
      },
      handler: async ({ caller, query }) => {
        const items: PublishedReceipt[] = [];
        let after = query.cursor === undefined ? undefined : Number(query.cursor);
        let scanned = 0;
        let more: boolean;
        for (;;) {
          const page = await deps.store.receipts.list(
            caller.actor,
            { limit: STORE_PAGE, after },
            query.task_id !== undefined ? { taskId: query.task_id } : {},
          );
          let i = 0;
          for (; i < page.items.length && items.length < query.limit; i++) {
            const r = page.items[i] as PublishedReceipt;
            scanned += 1;
            after = r.sequence;
            if (matches(r, query)) items.push(r);
          }
          more = i < page.items.length || page.next !== undefined;
          if (!more || items.length >= query.limit || scanned >= RECORDS_SCAN_LIMIT) break;
        }
        return { items, next_cursor: more && after !== undefined ? String(after) : null, scanned };
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
  ];
}
