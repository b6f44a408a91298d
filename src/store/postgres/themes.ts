import { saveTheme, type ThemeOps, type ThemeSave } from '../../core/theme/revision.js';
import { runAsync, type Async } from '../../core/use-case.js';
import type { ThemeRepo, ThemeRevision } from '../console-ports.js';
import { THEME_COLUMNS, themeValues, toRevision, type ThemeRow } from '../rows/theme.js';
import { pgStoreError, type PgDb, type PgTx } from './database.js';
import { lockTenant } from './locks.js';

const LATEST = `SELECT ${THEME_COLUMNS} FROM themes WHERE tenant_id = $1 ORDER BY revision DESC LIMIT 1`;
const LOGO = 'SELECT logo FROM themes WHERE tenant_id = $1 AND logo_name = $2 LIMIT 1';

/** The reads and writes of saving a theme in one tenant transaction (core/theme/revision.ts decides). */
export function themeOpsIn(tx: PgTx): Async<ThemeOps> {
  return {
    latestRevision: async (tenantId) => {
      const [row] = await tx.query<ThemeRow>(LATEST, [tenantId]);
      return row === undefined ? 0 : Number(row.revision);
    },
    insertRevision: async (r) =>
      (
        await tx.query(
          `INSERT INTO themes (tenant_id, revision, document, source, created_by, created_at, logo_name, logo)
           VALUES ($1, $2, $3, $4, $5, $6, $7, $8) ON CONFLICT (tenant_id, revision) DO NOTHING RETURNING 1`,
          themeValues(r),
        )
      ).length,
  };
}

export class PgThemes implements ThemeRepo {
  constructor(private readonly db: PgDb) {}

  async current(tenantId: string): Promise<ThemeRevision | undefined> {
    const [row] = await this.db.query<ThemeRow>(LATEST, [tenantId]);
    return row && toRevision(row);
  }

  async logo(tenantId: string, name: string): Promise<Uint8Array | undefined> {
    const [row] = await this.db.query<{ logo: Buffer }>(LOGO, [tenantId, name]);
    return row?.logo;
  }

  async save(input: ThemeSave): Promise<ThemeRevision> {
    try {
      return await this.db.tx(async (tx): Promise<ThemeRevision> => {
        // The revision check and the insert hold the tenant's lock together, so two
        // administrators saving from the same revision (on any replicas) cannot both win.
        await lockTenant(tx, input.tenantId);
        return runAsync(saveTheme(input), themeOpsIn(tx));
      });
    } catch (err) {
      throw pgStoreError(err, `the theme of tenant ${input.tenantId}`);
    }
  }
}
