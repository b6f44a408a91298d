import type { ThemeRepo, ThemeRevision } from '../console-ports.js';
import { nextThemeRow, THEME_COLUMNS, toRevision, type ThemeRow } from '../rows/theme.js';
import { pgStoreError, type PgDb } from './database.js';
import { lockTenant } from './locks.js';

const LATEST = `SELECT ${THEME_COLUMNS} FROM themes WHERE tenant_id = $1 ORDER BY revision DESC LIMIT 1`;
const LOGO = 'SELECT logo FROM themes WHERE tenant_id = $1 AND logo_name = $2 LIMIT 1';

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

  async save(input: Parameters<ThemeRepo['save']>[0]): Promise<ThemeRevision> {
    try {
      return await this.db.tx(async (tx): Promise<ThemeRevision> => {
        // The revision check and the insert hold the tenant's lock together, so two
        // administrators saving from the same revision (on any replicas) cannot both win.
        await lockTenant(tx, input.tenantId);
        const [latest] = await tx.query<ThemeRow>(LATEST, [input.tenantId]);
        const row = nextThemeRow(latest, input);
        await tx.query(
          `INSERT INTO themes (tenant_id, revision, document, source, created_by, created_at, logo_name, logo)
           VALUES ($1, $2, $3, $4, $5, $6, $7, $8)`,
          [
            row.tenant_id,
            row.revision,
            row.document,
            row.source,
            row.created_by,
            row.created_at,
            row.logo_name,
            row.logo === null ? null : Buffer.from(row.logo),
          ],
        );
        return toRevision(row);
      });
    } catch (err) {
      throw pgStoreError(err, `the theme of tenant ${input.tenantId}`);
    }
  }
}
