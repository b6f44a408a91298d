import { SvcError } from '../errors.js';
import { checkGuarded } from '../guarded-write.js';
import { asker, type UseCase } from '../use-case.js';
import type { EditorLogo } from './editor-logo.js';
import type { Theme } from './theme.js';

/** One stored revision of a tenant's theme; revisions are never edited, only added. */
export interface ThemeRevision {
  tenantId: string;
  revision: number;
  theme: Theme;
  source: 'install' | 'editor';
  createdBy: string | null;
  createdAt: string;
}

/** A theme to save as the tenant's next revision. */
export interface ThemeSave {
  tenantId: string;
  theme: Theme;
  source: 'install' | 'editor';
  createdBy: string | null;
  at: string;
  /** the revision the editor saw (0: none yet); absent for provisioning, which follows the newest */
  expected?: number;
  /** a logo saved through the Settings editor, kept with this revision */
  logo?: EditorLogo;
}

/** A new revision as stored: the theme's JSON text, and the editor logo it keeps, if any. */
export interface NewThemeRevision extends Omit<ThemeRevision, 'theme'> {
  document: string;
  logo: EditorLogo | null;
}

/**
 * The store operations of saving a theme, inside one transaction that holds the tenant's
 * writer, so two administrators saving from the same revision cannot both win.
 */
export interface ThemeOps {
  /** the tenant's newest revision number; 0 when it has no theme */
  latestRevision(tenantId: string): number;
  /** store the revision where none is stored at its number: the rows inserted */
  insertRevision(r: NewThemeRevision): number;
}

const ask = asker<ThemeOps>();

/**
 * Add the next revision. With `expected`, the write happens only when the current revision
 * is still that number; otherwise `stale_revision` and nothing is written.
 */
export function* saveTheme(input: ThemeSave): UseCase<ThemeOps, ThemeRevision> {
  const current = yield* ask('latestRevision', input.tenantId);
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
  const next: NewThemeRevision = {
    tenantId: input.tenantId,
    revision: current + 1,
    document: JSON.stringify(input.theme),
    source: input.source,
    createdBy: input.createdBy,
    createdAt: input.at,
    logo: input.logo ?? null,
  };
  checkGuarded(
    `revision ${next.revision} of tenant ${input.tenantId}'s theme`,
    yield* ask('insertRevision', next),
  );
  return {
    tenantId: next.tenantId,
    revision: next.revision,
    theme: JSON.parse(next.document) as Theme,
    source: next.source,
    createdBy: next.createdBy,
    createdAt: next.createdAt,
  };
}
