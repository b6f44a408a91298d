import { z } from 'zod';
import { CAPABILITY_NAME } from '../core/capability.js';
import type { ExecutionPlan as Plan } from '../core/constraints.js';
import { SLUG } from '../core/ids.js';
import { parseUsd } from '../core/money.js';

const isUsd = (v: number) => {
  try {
    parseUsd(v, 'amount');
    return true;
  } catch {
    return false;
  }
};

const Usd = z
  .number()
  .refine(isUsd, { message: 'expected USD from 0 to 1e12 with at most 6 decimal places' });

const distinct = (items: readonly string[]) => new Set(items).size === items.length;

function nameList(what: string, pattern: RegExp) {
  return z
    .array(z.string().regex(pattern))
    .min(1)
    .max(200)
    .refine(distinct, { message: `expected each ${what} once` });
}

const Instant = z.iso.datetime({ offset: true });

/**
 * The execution plan (semantics.md, Tasks and execution constraints): closed, every bound
 * optional, installed once. Stored as given, with date-times normalised to UTC so every
 * reader compares the same instants.
 */
export const ExecutionPlan = z
  .strictObject({
    capabilities: nameList('capability', CAPABILITY_NAME)
      .optional()
      .describe('capabilities the task tree may use'),
    actors: nameList('actor', SLUG).optional().describe('actors that may act in the task tree'),
    max_amount_usd_per_action: Usd.optional().describe('the largest amount_usd one action may reserve'),
    max_total_usd: Usd.optional().describe('the total every admission of the tree may reserve'),
    max_actions: z
      .number()
      .int()
      .min(1)
      .max(1_000_000_000)
      .optional()
      .describe('how many actions the tree admits'),
    not_before: Instant.optional().describe('no admission before this instant'),
    not_after: Instant.optional().describe('no admission at or after this instant'),
  })
  .refine(
    (p) =>
      p.not_before === undefined ||
      p.not_after === undefined ||
      Date.parse(p.not_before) < Date.parse(p.not_after),
    {
      message: 'expected not_after later than not_before',
      path: ['not_after'],
    },
  )
  .transform((p): Plan => ({
    ...p,
    ...(p.not_before !== undefined ? { not_before: new Date(p.not_before).toISOString() } : {}),
    ...(p.not_after !== undefined ? { not_after: new Date(p.not_after).toISOString() } : {}),
  }))
  .meta({ id: 'ExecutionPlan' });

/** The stored plan, as responses show it (no transform: what is stored is already normal). */
const PlanView = z
  .object({
    capabilities: z.array(z.string()).optional(),
    actors: z.array(z.string()).optional(),
    max_amount_usd_per_action: z.number().optional(),
    max_total_usd: z.number().optional(),
    max_actions: z.number().int().optional(),
    not_before: z.string().optional(),
    not_after: z.string().optional(),
  })
  .meta({ id: 'ExecutionPlanView' });

export const AdmissionView = z
  .object({
    reservation_id: z.string(),
    task_id: z.string(),
    actor_id: z.string(),
    capability: z.string(),
    amount_usd: z.number().describe('estimate committed at admission, not a settled charge'),
    intent_id: z.string(),
    created_at: z.string(),
  })
  .meta({ id: 'Admission' });

export const ExecutionProfile = z
  .object({
    task_id: z.string(),
    root_id: z.string().describe('the root whose plan governs this task'),
    installed: z.boolean(),
    plan: PlanView.nullable().describe('null until the sponsor installs it'),
    installed_at: z.string().nullable(),
    installed_by: z.string().nullable(),
    ledger: z
      .discriminatedUnion('visibility', [
        z.object({
          visibility: z.literal('full').describe('operators and the sponsor'),
          admitted_actions: z.number().int(),
          admitted_total_usd: z.number(),
          admissions: z.array(AdmissionView),
        }),
        z.object({
          visibility: z.literal('own').describe('other readers of the task: their own reservations only'),
          reservation_ids: z.array(z.string()),
        }),
      ])
      .describe("the root's admissions ledger, as the caller may see it"),
  })
  .meta({ id: 'ExecutionProfile' });
