/**
 * What the policy step of one decision was evaluated with, kept so the same request can be
 * evaluated again against another policy (a shadow on live traffic, a replay of the journal)
 * exactly as it was: the actor's and the capability's attributes at the time, not as they
 * are when the question is asked again.
 */
import { z } from 'zod';
import { ACTOR_KINDS, type ActorKind } from '../core/actor.js';
import type { PolicyRequest } from './authorization.js';

export interface PolicyInputs {
  actor: { id: string; kind: ActorKind; roles: string[]; manager: string | null };
  capability: { id: string; tier: number; irreversible: boolean; custody: string };
  action: string;
  taskId: string;
  /** whole micros as a decimal string: JSON has no 64-bit integer */
  amountMicros: string;
  route: 'action' | 'brokered';
  nowEpochS: number;
  /** the tenant's approval tier then: with the capability, whether an allow waits for a person */
  approvalTier: number;
}

const inputsSchema = z.strictObject({
  actor: z.strictObject({
    id: z.string().min(1),
    kind: z.enum(ACTOR_KINDS),
    roles: z.array(z.string()),
    manager: z.string().nullable(),
  }),
  capability: z.strictObject({
    id: z.string().min(1),
    tier: z.number().int(),
    irreversible: z.boolean(),
    custody: z.string(),
  }),
  action: z.string().min(1),
  taskId: z.string().min(1),
  amountMicros: z.string().regex(/^(0|[1-9][0-9]{0,19})$/, 'a whole number of micros'),
  route: z.enum(['action', 'brokered']),
  nowEpochS: z.number().int(),
  approvalTier: z.number().int(),
});

/** The inputs of a policy request, with the approval tier it was decided under. */
export function inputsOf(request: Omit<PolicyRequest, 'tenantId'>, approvalTier: number): PolicyInputs {
  const { actor, capability } = request;
  return {
    actor: { id: actor.id, kind: actor.kind, roles: [...actor.roles], manager: actor.manager ?? null },
    capability: {
      id: capability.id,
      tier: capability.tier,
      irreversible: capability.irreversible,
      custody: capability.custody,
    },
    action: request.action,
    taskId: request.taskId,
    amountMicros: request.amountMicros.toString(),
    route: request.route,
    nowEpochS: request.nowEpochS,
    approvalTier,
  };
}

/** The request to evaluate these inputs again. */
export function requestOf(tenantId: string, inputs: PolicyInputs): PolicyRequest {
  return {
    tenantId,
    actor: { ...inputs.actor, roles: [...inputs.actor.roles] },
    capability: { ...inputs.capability },
    action: inputs.action,
    taskId: inputs.taskId,
    amountMicros: BigInt(inputs.amountMicros),
    route: inputs.route,
    nowEpochS: inputs.nowEpochS,
  };
}

/**
 * Inputs read back from storage, checked: a row that does not parse is reported by the
 * caller as unreadable, never evaluated half-known.
 */
export function parseInputs(value: unknown): PolicyInputs | undefined {
  const parsed = inputsSchema.safeParse(value);
  return parsed.success ? parsed.data : undefined;
}
