import type { Actor } from '../../src/core/actor.js';
import { requestDigest, type DecisionRequest } from '../../src/core/decision/request.js';
import type { PgDb } from '../../src/store/postgres/database.js';

/**
 * Registry rows written straight to a PostgreSQL database, as provisioning would: tenant
 * acme, human alice, agent bot, capabilities (crm.notes free, crm.paid 0.01 USD,
 * payments.send irreversible tier 4), a permit-all policy, task keys (large budget) and
 * task small (1.5 USD).
 */
export const AT = '2026-06-01T00:00:00.000Z';
export const bot: Actor = {
  tenantId: 'acme',
  id: 'bot',
  kind: 'agent',
  roles: [],
  managerId: 'alice',
  certSubject: null,
  displayName: null,
  createdAt: AT,
};

/** An allowed-shape `POST /v1/action` request of agent bot in tenant acme (both adapters' tests). */
export function request(
  capability: string,
  taskId: string,
  step: string,
  amountUsd?: number,
  params?: Record<string, unknown>,
): DecisionRequest {
  const body = {
    tenant_id: 'acme',
    actor_id: 'bot',
    capability,
    action: 'write',
    task_id: taskId,
    effect_key_step: step,
    ...(amountUsd !== undefined ? { amount_usd: amountUsd } : {}),
    ...(params !== undefined ? { params } : {}),
  };
  return {
    route: 'action',
    tenantId: 'acme',
    actorId: 'bot',
    capability,
    action: 'write',
    taskId,
    step,
    amountMicros: amountUsd === undefined ? null : BigInt(Math.round(amountUsd * 1e6)),
    amountSource: amountUsd === undefined ? 'capability_default' : 'requester_estimate',
    intent: `write ${step}`,
    params: params ?? null,
    correlationId: null,
    traceId: null,
    digest: requestDigest(body),
    body,
  };
}

/** Registry rows as provisioning writes them: what the decisions read. */
export async function seed(db: PgDb): Promise<void> {
  const q = (sql: string, params: unknown[]) => db.query(sql, params);
  await q('INSERT INTO tenants (id, created_at) VALUES ($1, $2)', ['acme', AT]);
  for (const [id, kind] of [
    ['alice', 'human'],
    ['bot', 'agent'],
  ])
    await q(
      `INSERT INTO actors (tenant_id, id, kind, roles, manager_id, created_at) VALUES ('acme', $1, $2, '[]', $3, $4)`,
      [id, kind, kind === 'agent' ? 'alice' : null, AT],
    );
  for (const [name, tier, irreversible, cost] of [
    ['crm.notes', 1, 0, 0],
    ['crm.paid', 1, 0, 10_000],
    ['payments.send', 4, 1, 1_000_000],
  ] as const) {
    await q(
      `INSERT INTO capabilities (tenant_id, name, tier, irreversible, custody, actions, cost_micros, requestable,
         created_at, updated_at) VALUES ('acme', $1, $2, $3, 'grant', '["write"]', $4, 0, $5, $5)`,
      [name, tier, irreversible, cost, AT],
    );
    await q(
      `INSERT INTO permissions (tenant_id, actor_id, capability, granted_at) VALUES ('acme', 'bot', $1, $2)`,
      [name, AT],
    );
  }
  await q(`INSERT INTO policies (tenant_id, version, text, updated_at) VALUES ('acme', 1, $1, $2)`, [
    'permit (principal, action, resource);',
    AT,
  ]);
  for (const [id, budget] of [
    ['keys', 1_000_000_000],
    ['small', 1_500_000],
  ] as const) {
    await q(
      `INSERT INTO tasks (tenant_id, id, sponsor_id, status, root_id, budget_micros, created_at)
       VALUES ('acme', $1, 'alice', 'active', $1, $2, $3)`,
      [id, budget, AT],
    );
    await q(`INSERT INTO task_actors (tenant_id, task_id, actor_id) VALUES ('acme', $1, 'bot')`, [id]);
  }
}
