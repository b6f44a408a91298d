import { z } from 'zod';
import type { SealedReceipt } from '../../store/decision-ports.js';
import type { ReportedEffect } from '../../store/effect-ports.js';
import type { DaemonDeps } from '../deps.js';
import { ErrorBodySchema } from '../../http/openapi.js';
import { defineRoute } from '../../http/route.js';

const ID = z.string().regex(/^[a-z]{3}_[0-9a-f]{32}$/);

const Effect = {
  status: z.enum(['succeeded', 'failed', 'unknown']).describe('what the reporter saw happen'),
  effect_id: z.string().min(1).max(200).optional().describe("the application's identifier of the effect"),
  detail: z.record(z.string(), z.unknown()).optional().describe('what the reporter wants on the record'),
};

const EffectReceipt = z
  .object({
    receipt_id: z.string(),
    sequence: z.number().int(),
    record_hash: z.string(),
    occurred_at: z.string(),
    intent_id: z.string(),
    outcome: z.string(),
    effect_id: z.string().nullable(),
    observed: z.literal(true).describe('reported, not enforced: the daemon did not see the effect happen'),
  })
  .meta({ id: 'EffectReceipt' });

const errors = {
  403: {
    description: 'refused (expired grant, grant not presented yet, not the intent actor)',
    schema: ErrorBodySchema,
  },
  404: {
    description: 'no such grant or intent in this tenant; also a grant minted for another actor',
    schema: ErrorBodySchema,
  },
  409: { description: 'already presented, or the effect is already journaled', schema: ErrorBodySchema },
};

function effectOf(b: {
  status: ReportedEffect['status'];
  effect_id?: string | undefined;
  detail?: Record<string, unknown> | undefined;
}): ReportedEffect {
  return { status: b.status, effectId: b.effect_id ?? null, detail: b.detail ?? null };
}

function receiptOf(r: SealedReceipt) {
  return {
    receipt_id: r.receiptId,
    sequence: r.sequence,
    record_hash: r.recordHash,
    occurred_at: r.occurredAt,
    intent_id: r.record.intent_id as string,
    outcome: r.record.outcome as string,
    effect_id: (r.record.effect_id as string | null) ?? null,
    observed: true as const,
  };
}

export function grantRoutes(deps: DaemonDeps) {
  return [
    defineRoute({
      method: 'POST',
      url: '/v1/grants/present',
      operationId: 'presentGrant',
      summary: 'bind a stored grant, once, to the actor it was minted for',
      tag: 'Grants',
      auth: 'token',
      body: z.strictObject({ grant_id: ID }),
      responses: {
        200: {
          description: 'the grant, now bound to the caller; authorization material, not proof of execution',
          schema: z.object({
            grant_id: z.string(),
            intent_id: z.string(),
            actor_id: z.string().describe('the actor the grant was minted for'),
            capability: z.string(),
            action: z.string(),
            task_id: z.string(),
            expires_at: z.string(),
            presented_by: z.string(),
            presented_at: z.string(),
          }),
        },
        ...errors,
      },
      handler: async ({ caller, body }) => {
        const g = await deps.store.effects.presentGrant(caller.tenantId, body.grant_id, caller.actor);
        return {
          grant_id: g.grantId,
          intent_id: g.intentId,
          actor_id: g.actorId,
          capability: g.capability,
          action: g.action,
          task_id: g.taskId,
          expires_at: g.expiresAt,
          presented_by: g.presentedBy,
          presented_at: g.presentedAt,
        };
      },
    }),
    defineRoute({
      method: 'POST',
      url: '/v1/grants/receipt',
      operationId: 'grantReceipt',
      summary: 'journal the observed effect of a presented grant',
      tag: 'Grants',
      auth: 'token',
      body: z.strictObject({ grant_id: ID, ...Effect }),
      responses: {
        200: { description: 'the sealed receipt of the reported effect', schema: EffectReceipt },
        ...errors,
      },
      handler: async ({ caller, body }) =>
        receiptOf(
          await deps.store.effects.recordGrantEffect(
            caller.tenantId,
            body.grant_id,
            caller.actor,
            effectOf(body),
          ),
        ),
    }),
    defineRoute({
      method: 'POST',
      url: '/v1/observe',
      operationId: 'observe',
      summary: 'report the effect of an allowed intent under pass_through custody: observed, never enforced',
      tag: 'Decision',
      auth: 'token',
      body: z.strictObject({ intent_id: ID, ...Effect }),
      responses: {
        200: { description: 'the sealed receipt of the observation', schema: EffectReceipt },
        ...errors,
      },
      handler: async ({ caller, body }) =>
        receiptOf(
          await deps.store.effects.observe(caller.tenantId, body.intent_id, caller.actor, effectOf(body)),
        ),
    }),
  ];
}
