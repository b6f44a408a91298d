import type { PgTx } from './database.js';

/**
 * The one rule that makes several replicas safe on one database: a transaction that
 * appends to a tenant's journal or changes its budgets, effect keys, approvals,
 * executions or anchors first takes that tenant's transaction-scoped advisory lock,
 * BEFORE reading the state it decides on. Each tenant is then serialised across replicas,
 * with no global lock; the lock is released by COMMIT or ROLLBACK.
 */
export async function lockTenant(tx: PgTx, tenantId: string): Promise<void> {
  await tx.query("SELECT pg_advisory_xact_lock(hashtextextended('svc:tenant:' || $1, 0))", [tenantId]);
}

/**
 * Several tenants in one transaction: always in the same (code-unit) order, so two
 * transactions that lock an overlapping set can never wait on each other in a cycle.
 */
export async function lockTenants(tx: PgTx, tenantIds: Iterable<string>): Promise<void> {
  const ids = [...new Set(tenantIds)].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
  for (const id of ids) await lockTenant(tx, id);
}
