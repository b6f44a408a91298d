import type { NewThemeRevision, ThemeRevision } from '../../core/theme/revision.js';
import type { Theme } from '../../core/theme/theme.js';
import type { DbInt } from './numbers.js';

/** A themes row as both drivers return it. */
export interface ThemeRow {
  tenant_id: string;
  revision: DbInt;
  document: string;
  source: 'install' | 'editor';
  created_by: string | null;
  created_at: string;
}

/** The columns a revision is read from: never the logo bytes, which only their route reads. */
export const THEME_COLUMNS = 'tenant_id, revision, document, source, created_by, created_at';

export const toRevision = (r: ThemeRow): ThemeRevision => ({
  tenantId: r.tenant_id,
  revision: Number(r.revision),
  theme: JSON.parse(r.document) as Theme,
  source: r.source,
  createdBy: r.created_by,
  createdAt: r.created_at,
});

/** The values of a new themes row, in the column order of both adapters' INSERT. */
export const themeValues = (r: NewThemeRevision): unknown[] => [
  r.tenantId,
  r.revision,
  r.document,
  r.source,
  r.createdBy,
  r.createdAt,
  r.logo?.name ?? null,
  r.logo === null ? null : Buffer.from(r.logo.bytes),
];
