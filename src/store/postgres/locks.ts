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
  if (ids.length === 1) return lockTenant(tx, ids[0]!);
  // One round trip for them all. The ordered subquery is never merged into the outer query
  // (PostgreSQL keeps a subquery with ORDER BY apart), so its rows reach the lock calls in
  // that order; WITH ORDINALITY keeps the order chosen here rather than the server's collation.
  await tx.query(
    `SELECT pg_advisory_xact_lock(hashtextextended('svc:tenant:' || l.id, 0))
     FROM (SELECT id FROM unnest($1::text[]) WITH ORDINALITY AS u(id, n) ORDER BY n) l`,
    [ids],
  );
}

/**
 * The locks of these tenants that no other transaction holds, taken without waiting (one
 * round trip): what a batch of several tenants runs with (commit-queue.ts). Taking them
 * never waits, so it can never close a cycle with a transaction that waits.
 */
export async function tryLockTenants(tx: PgTx, tenantIds: string[]): Promise<Set<string>> {
  const rows = await tx.query<{ id: string; ok: boolean }>(
    `SELECT u.id, pg_try_advisory_xact_lock(hashtextextended('svc:tenant:' || u.id, 0)) AS ok
     FROM unnest($1::text[]) AS u(id)`,
    [tenantIds],
  );
  return new Set(rows.filter((r) => r.ok).map((r) => r.id));
}
