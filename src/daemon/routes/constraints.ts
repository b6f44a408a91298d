import type { z } from 'zod';
import { SvcError } from '../../core/errors.js';
import { formatUsd } from '../../core/money.js';
import type { ConstraintProfile } from '../../store/query-ports.js';
import type { DaemonDeps } from '../deps.js';
import { ErrorBodySchema } from '../../http/openapi.js';
import { defineRoute, type AnyRoute } from '../../http/route.js';
import { ExecutionPlan, ExecutionProfile } from '../../api/constraints.js';
import { IdParams } from './tasks.js';

export function profileView(p: ConstraintProfile): z.output<typeof ExecutionProfile> {
  const l = p.ledger;
  return {
    task_id: p.taskId,
    root_id: p.rootId,
    installed: p.plan !== null,
    plan: p.plan,
    installed_at: p.installedAt,
    installed_by: p.installedBy,
    ledger:
      l.visibility === 'full'
        ? {
            visibility: 'full',
            admitted_actions: l.count,
            admitted_total_usd: formatUsd(l.totalMicros),
            admissions: l.admissions.map((a) => ({
              reservation_id: a.id,
              task_id: a.taskId,
              actor_id: a.actorId,
              capability: a.capability,
              amount_usd: formatUsd(a.amountMicros),
              intent_id: a.intentId,
              created_at: a.createdAt,
            })),
          }
        : { visibility: 'own', reservation_ids: l.reservationIds },
  };
}

const ROUTE = '/v1/task/:id/execution-constraints';

/** The immutable execution plan of a root task, and the admissions made under it. */
export function constraintRoutes(deps: DaemonDeps): AnyRoute[] {
  return [
    defineRoute({
      method: 'GET',
      url: ROUTE,
      operationId: 'executionConstraints',
      summary:
        "read the task root's execution profile and admissions: operators and the sponsor see the full ledger, other task readers their own reservation ids",
      tag: 'Task',
      auth: 'token',
      params: IdParams,
      responses: {
        200: { description: 'the profile of the root that governs this task', schema: ExecutionProfile },
        404: {
          description: 'no such task in this tenant, or not one the caller may read',
          schema: ErrorBodySchema,
        },
      },
      handler: async ({ caller, params }) => {
        const profile = await deps.store.constraints.profile(caller.actor, params.id);
        if (!profile) throw new SvcError('not_found', 'no such task');
        return profileView(profile);
      },
    }),
    defineRoute({
      method: 'POST',
      url: ROUTE,
      summary:
        'install the immutable execution plan on an unused draft root task and activate it; only its registered human sponsor, only once',
      tag: 'Task',
      auth: 'token',
      params: IdParams,
      body: ExecutionPlan,
      responses: {
        201: { description: 'installed; the task is active', schema: ExecutionProfile },
        403: {
          description: 'the caller is not the registered human sponsor of the task',
          schema: ErrorBodySchema,
        },
        404: {
          description: 'no such task in this tenant, or not one the caller may read',
          schema: ErrorBodySchema,
        },
        409: {
          description:
            'already installed (plans never change), not a root, not draft, or already has admissions',
          schema: ErrorBodySchema,
        },
      },
      handler: async ({ caller, params, body, reply }) => {
        const profile = await deps.store.constraints.install(caller.actor, params.id, body, deps.clock());
        return reply.status(201).send(profileView(profile));
      },
    }),
  ];
}
