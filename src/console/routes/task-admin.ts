import { z } from 'zod';
import { requireHuman } from '../../http/auth.js';
import { ErrorBodySchema } from '../../http/openapi.js';
import { defineRoute, type AnyRoute } from '../../http/route.js';
import { closeTask, setTaskBudget } from '../../provisioning/task.js';
import type { ConsoleDeps } from '../deps.js';

/** What `svc task close --json` and `svc task budget --json` return, field for field. */
const ClosedTask = z
  .object({
    tenant_id: z.string(),
    task_id: z.string(),
    title: z.string().nullable(),
    sponsor: z.string(),
    status: z.enum(['draft', 'active', 'closed']),
    parent_id: z.string().nullable(),
    root_id: z.string(),
    budget_usd: z.number(),
    reserved_usd: z.number(),
    actors: z.array(z.string()),
    created_at: z.string(),
    closed_at: z.string().nullable(),
  })
  .meta({ id: 'ConsoleTaskChange' });

const TaskParam = z.strictObject({ id: z.string().min(1).max(200).describe('the task id') });
const CloseBody = z.strictObject({});
const BudgetBody = z.strictObject({
  budget_usd: z
    .union([z.number(), z.string().max(40)])
    .describe('the new budget in USD (at most 6 decimal places); never below what is reserved'),
});

const refusals = {
  403: { description: 'not an administrator', schema: ErrorBodySchema },
  404: { description: 'no such task in the tenant', schema: ErrorBodySchema },
  409: {
    description: 'the task is closed (or, for a budget, already reserves more)',
    schema: ErrorBodySchema,
  },
};

/**
 * Closing a task and changing its budget: an administrator's, behind the session's CSRF
 * token, through the same functions `svc task close` and `svc task budget` call, so the
 * same rules hold (a closed task is final; a budget never goes below what is reserved).
 */
export function taskAdminRoutes(deps: ConsoleDeps): AnyRoute[] {
  return [
    defineRoute({
      method: 'POST',
      url: '/api/tasks/:id/close',
      summary:
        'close a task: final; it takes no more decisions, budget changes or children (administrator; CSRF token)',
      tag: 'Console tasks',
      auth: 'token',
      params: TaskParam,
      body: CloseBody,
      responses: {
        200: { description: 'the closed task (the shape of svc task close --json)', schema: ClosedTask },
        400: { description: 'a task id that is not one', schema: ErrorBodySchema },
        ...refusals,
      },
      beforeBody: (caller) => requireHuman(caller, 'administrator'),
      handler: async ({ caller, params }) => {
        return closeTask(deps.store, { tenantId: caller.tenantId, id: params.id, now: deps.clock() });
      },
    }),
    defineRoute({
      method: 'POST',
      url: '/api/tasks/:id/budget',
      summary:
        "set a task's budget; never below what allowed decisions have already reserved (administrator; CSRF token)",
      tag: 'Console tasks',
      auth: 'token',
      params: TaskParam,
      body: BudgetBody,
      responses: {
        200: {
          description: 'the task with its new budget (the shape of svc task budget --json)',
          schema: ClosedTask.extend({ previous_budget_usd: z.number() }),
        },
        400: { description: 'an amount that is not one, the field named', schema: ErrorBodySchema },
        ...refusals,
      },
      beforeBody: (caller) => requireHuman(caller, 'administrator'),
      handler: async ({ caller, params, body }) => {
        return setTaskBudget(deps.store, {
          tenantId: caller.tenantId,
          id: params.id,
          budgetUsd: body.budget_usd,
          field: 'budget_usd',
        });
      },
    }),
  ];
}
