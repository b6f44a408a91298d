import type { AdmissionRow, ExecutionRow, GrantRow, OpenApprovalRow } from '../../core/decision/writes.js';

/**
 * The values of the rows a decision inserts, in the column order of the tables' INSERTs in
 * both adapters (`?` on SQLite, `$n` on PostgreSQL): one place says which field fills which column.
 * Money stays a bigint: better-sqlite3 binds it, node-postgres sends its decimal text.
 */
export function admissionValues(tenantId: string, a: AdmissionRow): unknown[] {
  return [
    tenantId,
    a.id,
    a.rootId,
    a.taskId,
    a.intentId,
    a.actorId,
    a.capability,
    a.amountMicros,
    a.createdAt,
  ];
}

export const GRANT_COLUMNS =
  'tenant_id, id, intent_id, actor_id, capability, task_id, expires_at, created_at';

export function grantValues(tenantId: string, g: GrantRow): unknown[] {
  return [tenantId, g.id, g.intentId, g.actorId, g.capability, g.taskId, g.expiresAt, g.createdAt];
}

/** `state` ('pending') is a literal in the SQL, before created_at; the owner columns come last. */
export function executionValues(
  tenantId: string,
  e: ExecutionRow,
  owner: { pid: number; instance: string },
): unknown[] {
  return [
    tenantId,
    e.id,
    e.intentId,
    e.taskId,
    e.step,
    e.actorId,
    e.capability,
    e.action,
    e.tier,
    e.surfaceId,
    e.operation,
    e.credentialRef,
    e.createdAt,
    owner.pid,
    owner.instance,
  ];
}

/** `status` ('pending') is a literal in the SQL, before expires_at. */
export function openApprovalValues(tenantId: string, a: OpenApprovalRow): unknown[] {
  return [
    tenantId,
    a.id,
    a.intentId,
    a.taskId,
    a.step,
    a.capability,
    a.action,
    a.requesterId,
    a.amountMicros,
    a.requestDigest,
    a.expiresAt,
    a.createdAt,
    a.request,
    a.amountSource,
  ];
}
