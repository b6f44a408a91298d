import type { RecordedDecision } from '../core/decision/recorded-inputs.js';

export type { RecordedDecision, StoredInputs } from '../core/decision/recorded-inputs.js';

/** Which decisions a replay reads; all bounds inclusive. */
export interface ReplayRange {
  fromSeq?: number;
  toSeq?: number;
  /** RFC 3339: decided at or after */
  since?: string;
  taskId?: string;
}

/** The recorded decisions of a tenant, read without writing (a replay, possibly of a backup). */
export interface RecordedDecisions {
  /** whether the tenant exists */
  tenantExists(tenantId: string): Promise<boolean>;
  /**
   * the verbs the candidate is compiled with: the tenant's capabilities' as registered now,
   * and every action a recorded decision asked for (a verb since removed still replays)
   */
  verbs(tenantId: string): Promise<string[]>;
  /** every snapshot body the tenant's decisions refer to, by id */
  snapshots(tenantId: string): Promise<Map<number, string>>;
  /**
   * the tenant's decision records in the range, in journal order, a page at a time (`page`
   * records at most, 2,000 by default; a reader inside a server asks for small pages, each read blocking it)
   */
  decisions(tenantId: string, range: ReplayRange, page?: number): AsyncIterable<RecordedDecision[]>;
  close(): Promise<void>;
}
