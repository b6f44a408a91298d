import { SvcError } from '../../core/errors.js';
import type { Theme } from '../../core/theme/theme.js';
import type { ThemeRepo, ThemeRevision } from '../console-ports.js';
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

/** A new row with its editor logo, if the revision keeps one. */
export interface ThemeInsert extends ThemeRow {
  logo_name: string | null;
  logo: Uint8Array | null;
}

export const toRevision = (r: ThemeRow): ThemeRevision => ({
  tenantId: r.tenant_id,
  revision: Number(r.revision),
  theme: JSON.parse(r.document) as Theme,
  source: r.source,
  createdBy: r.created_by,
  createdAt: r.created_at,
});

/**
 * The next revision's row, read under the caller's lock: refused when the editor saw another
 * revision than the latest, so two administrators saving from one revision cannot both win.
 */
export function nextThemeRow(
  latest: ThemeRow | undefined,
  input: Parameters<ThemeRepo['save']>[0],
): ThemeInsert {
  const current = latest === undefined ? 0 : Number(latest.revision);
  if (input.expected !== undefined && input.expected !== current) {
    throw new SvcError(
      'conflict',
      `someone else changed the appearance: you edited revision ${input.expected}, the current revision is ${current}`,
      {
        code: 'stale_revision',
        field: 'revision',
        remedy: 'reload the appearance settings, reapply your change and save again',
      },
    );
  }
  return {
    tenant_id: input.tenantId,
    revision: current + 1,
    document: JSON.stringify(input.theme),
    source: input.source,
    created_by: input.createdBy,
    created_at: input.at,
    logo_name: input.logo?.name ?? null,
    logo: input.logo?.bytes ?? null,
  };
}
