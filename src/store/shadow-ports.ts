import type { ShadowBatch, ShadowRecord } from '../core/policy-shadow.js';
import type { PolicyDifference } from '../policy/policy-difference.js';

export type { ShadowBatch, ShadowRecord } from '../core/policy-shadow.js';

/** What a daemon checks before each batch: which candidate is set, under which registry version. */
export interface ShadowProbe {
  candidateId: string | null;
  registryVersion: number;
}

/** A tenant's shadow policy and the differences recorded for it (core/policy-shadow.ts decides). */
export interface PolicyShadowRepo {
  get(tenantId: string): Promise<ShadowRecord | undefined>;
  set(
    input: Pick<ShadowRecord, 'tenantId' | 'candidateId' | 'text' | 'source' | 'setAt'>,
  ): Promise<ShadowRecord>;
  clear(tenantId: string): Promise<boolean>;
  /** false when the batch's candidate is no longer the tenant's (nothing was written) */
  record(batch: ShadowBatch): Promise<boolean>;
  /** one cheap read: the candidate set (null: none) and the tenant's registry version (0: no tenant) */
  probe(tenantId: string): Promise<ShadowProbe>;
  /** the candidate's recorded differences; a row that does not parse is counted, never guessed */
  differences(
    tenantId: string,
    candidateId: string,
  ): Promise<{ differences: PolicyDifference[]; unreadable: number }>;
}
