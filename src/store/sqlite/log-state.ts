import type { LogState } from '../../evidence/journal-entry.js';
import { prep, type Db } from './database.js';

/** A tenant's stored log state (size, chain hash, Merkle frontier); undefined before its first entry. */
export function readLogState(db: Db, tenantId: string): LogState | undefined {
  const row = prep(db, 'SELECT size, chain_hash, frontier FROM journal_state WHERE tenant_id = ?').get(
    tenantId,
  ) as { size: number; chain_hash: string; frontier: string } | undefined;
  if (row === undefined) return undefined;
  return {
    size: row.size,
    chainHash: row.chain_hash,
    frontier: JSON.parse(row.frontier) as LogState['frontier'],
  };
}
