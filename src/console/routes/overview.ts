import { z } from 'zod';
import { summarizeActivity, firstHour } from '../../core/activity.js';
import { formatUsd, remaining } from '../../core/money.js';
import { ErrorBodySchema } from '../../http/openapi.js';
import { defineRoute, type AnyRoute } from '../../http/route.js';
import type { ConsoleDeps } from '../deps.js';
import { requireReader } from './registry.js';

/** How much of the overview's lists it shows; each links to the page with the rest. */
const OLDEST_PENDING = 5;
const TOP_TASKS = 5;
const TOP_CODES = 5;
const DAY_HOURS = 24;

const Outcomes = z.object({ allowed: z.number(), refused: z.number(), deferred: z.number() });

const OverviewView = z
  .object({
    generated_at: z.string(),
    approvals: z.object({
      pending: z.number().describe('pending, unexpired approvals the signed-in human reads'),
      oldest: z.array(
        z.object({
          approval_id: z.string(),
          capability: z.string(),
          action: z.string(),
          requester_id: z.string(),
          task_id: z.string(),
          amount_usd: z.number(),
          created_at: z.string(),
          age_seconds: z.number(),
          expires_at: z.string(),
        }),
      ),
    }),
    decisions: z.object({
      hours: z
        .array(Outcomes.extend({ hour: z.string().describe('the clock hour (UTC) the bucket starts at') }))
        .describe('the last 24 clock hours, oldest first; the last is the current hour so far'),
      this_hour: Outcomes,
      last_24h: Outcomes,
      refusal_codes: z.array(z.object({ code: z.string(), count: z.number() })),
      records_by_kind: z.array(z.object({ kind: z.string(), count: z.number() })),
    }),
    spend: z
      .array(
        z.object({
          task_id: z.string(),
          budget_usd: z.number(),
          reserved_usd: z.number(),
          remaining_usd: z.number(),
          burn: z.number().describe('reserved / budget (1 for a task with no budget and anything reserved)'),
        }),
      )
      .describe('active tasks with the largest share of their budget reserved'),
    anchors: z.object({
      journal_size: z.number(),
      anchored_size: z.number().describe('entries the latest signed head covers'),
      first_unanchored_at: z.string().nullable().describe('linked_at of the oldest entry no head covers'),
      latest: z
        .object({
          tree_size: z.number(),
          signed_at: z.string(),
          age_seconds: z.number(),
          timestamp: z
            .object({ authority: z.string(), time: z.string(), placeholder: z.boolean() })
            .nullable()
            .describe('its RFC 3161 timestamp; placeholder: the noop authority, no trusted time'),
          witnesses: z.array(z.object({ witness_id: z.string(), signed_at: z.string() })),
        })
        .nullable(),
    }),
    notifications: z.object({
      pending: z.number(),
      dead: z.number(),
      disabled: z.number(),
      failing_destinations: z.array(
        z.object({ destination_id: z.string(), kind: z.string(), reason: z.string().nullable() }),
      ),
    }),
  })
  .meta({ id: 'ConsoleOverview' });

const ageSeconds = (now: Date, at: string): number =>
  Math.max(0, Math.floor((now.getTime() - Date.parse(at)) / 1000));

/**
 * The landing page's figures, each from a bounded read: activity from the hourly counts the
 * store keeps as the journal is appended (at most 24 hours x kinds x outcomes x codes rows),
 * the oldest pending approvals, the tenant's active tasks by burn, the latest signed head, and
 * the notification counts. Nothing here reads the journal itself.
 */
export function overviewRoutes(deps: ConsoleDeps): AnyRoute[] {
  return [
    defineRoute({
      method: 'GET',
      url: '/api/overview',
      summary:
        'the landing page: pending approvals with their age, decisions per hour by outcome, top refusal codes, task burn, anchor health and notification failures (operator, administrator or auditor)',
      tag: 'Console overview',
      auth: 'token',
      responses: {
        200: { description: 'the overview', schema: OverviewView },
        403: { description: 'not an operator, administrator or auditor', schema: ErrorBodySchema },
      },
      handler: async ({ caller }) => {
        requireReader(caller);
        const now = deps.clock();
        const tenantId = caller.tenantId;
        const [activity, pending, burn, log, latest, counts, destinations] = await Promise.all([
          deps.store.overview.activity(tenantId, firstHour(now, DAY_HOURS)),
          deps.store.overview.pendingApprovals(caller.actor, now, OLDEST_PENDING),
          deps.store.overview.taskBurn(tenantId, TOP_TASKS),
          deps.store.overview.anchorBacklog(tenantId),
          deps.store.anchors.latest(tenantId),
          deps.store.notify.counts(tenantId),
          deps.store.notify.destinations(tenantId),
        ]);
        const day = summarizeActivity(activity, now, { hours: DAY_HOURS, topCodes: TOP_CODES });
        return {
          generated_at: now.toISOString(),
          approvals: {
            pending: pending.count,
            oldest: pending.oldest.map((a) => ({
              approval_id: a.id,
              capability: a.capability,
              action: a.action,
              requester_id: a.requesterId,
              task_id: a.taskId,
              amount_usd: formatUsd(a.amountMicros),
              created_at: a.createdAt,
              age_seconds: ageSeconds(now, a.createdAt),
              expires_at: a.expiresAt,
            })),
          },
          decisions: {
            hours: day.hours.map((h) => ({ ...h, hour: `${h.hour}:00:00Z` })),
            this_hour: day.thisHour,
            last_24h: day.lastDay,
            refusal_codes: day.refusalCodes,
            records_by_kind: day.byKind,
          },
          spend: burn.map((t) => ({
            task_id: t.id,
            budget_usd: formatUsd(t.budgetMicros),
            reserved_usd: formatUsd(t.reservedMicros),
            remaining_usd: formatUsd(remaining({ limit: t.budgetMicros, reserved: t.reservedMicros })),
            burn:
              t.budgetMicros === 0n
                ? t.reservedMicros > 0n
                  ? 1
                  : 0
                : Number((t.reservedMicros * 10_000n) / t.budgetMicros) / 10_000,
          })),
          anchors: {
            journal_size: log.size,
            anchored_size: log.anchoredSize,
            first_unanchored_at: log.firstUnanchoredAt,
            latest:
              latest === undefined
                ? null
                : {
                    tree_size: latest.head.tree_size,
                    signed_at: latest.head.signed_at,
                    age_seconds: ageSeconds(now, latest.head.signed_at),
                    timestamp:
                      latest.timestamp === undefined
                        ? null
                        : {
                            authority: latest.timestamp.authority,
                            time: latest.timestamp.time,
                            placeholder: latest.timestamp.noop === true,
                          },
                    witnesses: (latest.witnesses ?? []).map((w) => ({
                      witness_id: w.witness_id,
                      signed_at: w.signed_at,
                    })),
                  },
          },
          notifications: {
            ...counts,
            failing_destinations: destinations
              .filter((d) => !d.enabled)
              .map((d) => ({ destination_id: d.id, kind: d.kind, reason: d.disabledReason })),
          },
        };
      },
    }),
  ];
}
