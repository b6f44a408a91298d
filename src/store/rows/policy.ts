import type { PolicyRecord, PolicyVersion, PolicyVersionSummary } from '../../core/policy-version.js';
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

/** A policy_versions row as both drivers return it (`text` absent where a history lists summaries). */
export interface PolicyVersionRow {
  tenant_id: string;
  version: DbInt;
  text?: string;
  sha256: string;
  set_by: string;
  message: string | null;
  set_at: string;
}

export const toPolicyVersionSummary = (r: PolicyVersionRow): PolicyVersionSummary => ({
  tenantId: r.tenant_id,
  version: int(r.version),
  sha256: r.sha256,
  setBy: r.set_by,
  message: r.message,
  setAt: r.set_at,
});

export const toPolicyVersion = (r: PolicyVersionRow): PolicyVersion => ({
  ...toPolicyVersionSummary(r),
  text: r.text ?? '',
});

/** The columns of a history listing: the text is read one version at a time. */
export const VERSION_SUMMARY_COLUMNS = 'tenant_id, version, sha256, set_by, message, set_at';

/** The values of a new history row, in the column order of INSERT_VERSION_COLUMNS. */
export const versionValues = (v: PolicyVersion): unknown[] => [
  v.tenantId,
  v.version,
  v.text,
  v.sha256,
  v.setBy,
  v.message,
  v.setAt,
];
export const INSERT_VERSION_COLUMNS = 'tenant_id, version, text, sha256, set_by, message, set_at';
