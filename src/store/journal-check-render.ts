import type { TenantJournalCheck } from './journal-check.js';

/** One line per tenant, for the store commands' text output. */
export function renderJournalChecks(checks: readonly TenantJournalCheck[]): string[] {
  if (checks.length === 0) return ['no tenants'];
  return checks.map((c) =>
    c.head === null
      ? `tenant ${c.tenant_id}: ${c.entries} entries, no signed head yet (nothing to check them against)`
      : `tenant ${c.tenant_id}: ${c.entries} entries, chain and root OK against the head signed at size ${c.head.tree_size} (root ${c.head.root_hash}, key ${c.head.key_id})` +
        (c.unsigned_entries > 0 ? `; ${c.unsigned_entries} later entries not yet under a signed head` : ''),
  );
}
