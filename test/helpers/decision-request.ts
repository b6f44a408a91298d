import { requestDigest, type DecisionRequest, type Route } from '../../src/core/decision/request.js';

/** The request as the API hands it to the decision: body, digest and all. */
export interface RequestSpec {
  tenantId?: string;
  route?: Route;
  actorId?: string;
  capability?: string;
  action?: string;
  taskId?: string;
  step?: string;
  amountUsd?: number;
  /** the amount in micros, for amounts a float cannot carry (amountUsd ignored) */
  amountMicros?: bigint;
}

export function decisionRequest(spec: RequestSpec = {}): DecisionRequest {
  const r = {
    tenantId: 'acme',
    route: 'action' as Route,
    actorId: 'bot',
    capability: 'crm.write',
    action: 'write',
    taskId: 't1',
    step: 's1',
    ...spec,
  };
  const micros =
    r.amountMicros ?? (r.amountUsd === undefined ? undefined : BigInt(Math.round(r.amountUsd * 1e6)));
  const body = {
    tenant_id: r.tenantId,
    actor_id: r.actorId,
    capability: r.capability,
    action: r.action,
    task_id: r.taskId,
    effect_key_step: r.step,
    ...(micros !== undefined ? { amount_usd: Number(micros) / 1e6 } : {}),
  };
  return {
    route: r.route,
    tenantId: r.tenantId,
    actorId: r.actorId,
    capability: r.capability,
    action: r.action,
    taskId: r.taskId,
    step: r.step,
    amountMicros: micros ?? null,
    amountSource: micros === undefined ? 'capability_default' : 'requester_estimate',
    intent: null,
    params: null,
    correlationId: null,
    traceId: null,
    digest: requestDigest(body),
    body,
  };
}
