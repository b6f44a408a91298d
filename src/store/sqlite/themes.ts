import type { ThemeRepo, ThemeRevision } from '../console-ports.js';
import { nextThemeRow, THEME_COLUMNS, toRevision, type ThemeRow } from '../rows/theme.js';
import { prep, storeError, type Db } from './database.js';

const LATEST = `SELECT ${THEME_COLUMNS} FROM themes WHERE tenant_id = ? ORDER BY revision DESC LIMIT 1`;
const LOGO = 'SELECT logo FROM themes WHERE tenant_id = ? AND logo_name = ? LIMIT 1';

export class SqliteThemes implements ThemeRepo {
  constructor(private readonly db: Db) {}

  async current(tenantId: string): Promise<ThemeRevision | undefined> {
    const row = prep(this.db, LATEST).get(tenantId) as ThemeRow | undefined;
    return row && toRevision(row);
  }

  async logo(tenantId: string, name: string): Promise<Uint8Array | undefined> {
    const row = prep(this.db, LOGO).get(tenantId, name) as { logo: Buffer } | undefined;
    return row?.logo;
  }

  async save(input: Parameters<ThemeRepo['save']>[0]): Promise<ThemeRevision> {
    // IMMEDIATE: the revision check and the insert hold the write lock together, so two
    // administrators saving from the same revision cannot both win.
    const tx = this.db.transaction((): ThemeRevision => {
      const latest = prep(this.db, LATEST).get(input.tenantId) as ThemeRow | undefined;
      const row = nextThemeRow(latest, input);
      prep(
        this.db,
        `INSERT INTO themes (tenant_id, revision, document, source, created_by, created_at, logo_name, logo)
         VALUES (@tenant_id, @revision, @document, @source, @created_by, @created_at, @logo_name, @logo)`,
      ).run({ ...row, logo: row.logo === null ? null : Buffer.from(row.logo) });
      return toRevision(row);
    });
    try {
      return tx.immediate();
    } catch (err) {
      throw storeError(err, `the theme of tenant ${input.tenantId}`);
    }
  }
}
