import type { LogState } from '../../evidence/journal-entry.js';
import { int, type DbInt } from './numbers.js';

/** A journal_state row as both drivers return it. */
export interface LogStateRow {
  size: DbInt;
  chain_hash: string;
  frontier: string;
}

export const logStateOf = (r: LogStateRow): LogState => ({
  size: int(r.size),
  chainHash: r.chain_hash,
  frontier: JSON.parse(r.frontier) as LogState['frontier'],
});
