import { saveTheme, type ThemeOps, type ThemeSave } from '../../core/theme/revision.js';
import { runSync } from '../../core/use-case.js';
import type { ThemeRepo, ThemeRevision } from '../console-ports.js';
import { THEME_COLUMNS, themeValues, toRevision, type ThemeRow } from '../rows/theme.js';
import { prep, storeError, type Db } from './database.js';

const LATEST = `SELECT ${THEME_COLUMNS} FROM themes WHERE tenant_id = ? ORDER BY revision DESC LIMIT 1`;
const LOGO = 'SELECT logo FROM themes WHERE tenant_id = ? AND logo_name = ? LIMIT 1';

/** The reads and writes of saving a theme (core/theme/revision.ts decides). */
export function themeOps(db: Db): ThemeOps {
  return {
    latestRevision: (tenantId) => {
      const row = prep(db, LATEST).get(tenantId) as ThemeRow | undefined;
      return row === undefined ? 0 : Number(row.revision);
    },
    insertRevision: (r) =>
      prep(
        db,
        `INSERT INTO themes (tenant_id, revision, document, source, created_by, created_at, logo_name, logo)
         VALUES (?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT (tenant_id, revision) DO NOTHING`,
      ).run(...themeValues(r)).changes,
  };
}

export class SqliteThemes implements ThemeRepo {
  private readonly ops: ThemeOps;

  constructor(private readonly db: Db) {
    this.ops = themeOps(db);
  }

  async current(tenantId: string): Promise<ThemeRevision | undefined> {
    const row = prep(this.db, LATEST).get(tenantId) as ThemeRow | undefined;
    return row && toRevision(row);
  }

  async logo(tenantId: string, name: string): Promise<Uint8Array | undefined> {
    const row = prep(this.db, LOGO).get(tenantId, name) as { logo: Buffer } | undefined;
    return row?.logo;
  }

  async save(input: ThemeSave): Promise<ThemeRevision> {
    // IMMEDIATE: the revision check and the insert hold the write lock together, so two
    // administrators saving from the same revision cannot both win.
    const tx = this.db.transaction(() => runSync(saveTheme(input), this.ops));
    try {
      return tx.immediate();
    } catch (err) {
      throw storeError(err, `the theme of tenant ${input.tenantId}`);
    }
  }
}
