import type { PolicyRecord } from '../../core/policy-version.js';
import { int, type DbInt } from './numbers.js';

/** A policies row as both drivers return it. */
export interface PolicyRow {
  tenant_id: string;
  version: DbInt;
  text: string;
  updated_at: string;
}

export const toPolicyRecord = (r: PolicyRow): PolicyRecord => ({
  tenantId: r.tenant_id,
  version: int(r.version),
  text: r.text,
  updatedAt: r.updated_at,
});
