import type { LogState } from '../../evidence/journal-entry.js';
import { logStateOf, type LogStateRow } from '../rows/log-state.js';
import { prep, type Db } from './database.js';

/** A tenant's stored log state (size, chain hash, Merkle frontier); undefined before its first entry. */
export function readLogState(db: Db, tenantId: string): LogState | undefined {
  const row = prep(db, 'SELECT size, chain_hash, frontier FROM journal_state WHERE tenant_id = ?').get(
    tenantId,
  ) as LogStateRow | undefined;
  return row && logStateOf(row);
}
