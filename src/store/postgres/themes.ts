import { SvcError } from '../../core/errors.js';
import type { Theme } from '../../core/theme/theme.js';
import type { ThemeRepo, ThemeRevision } from '../console-ports.js';
import { pgStoreError, type PgDb } from './database.js';
import { lockTenant } from './locks.js';

interface ThemeRow {
  tenant_id: string;
  revision: string | number;
  document: string;
  source: 'install' | 'editor';
  created_by: string | null;
  created_at: string;
}

const toRevision = (r: ThemeRow): ThemeRevision => ({
  tenantId: r.tenant_id,
  revision: Number(r.revision),
  theme: JSON.parse(r.document) as Theme,
  source: r.source,
  createdBy: r.created_by,
  createdAt: r.created_at,
});

const LATEST = 'SELECT * FROM themes WHERE tenant_id = $1 ORDER BY revision DESC LIMIT 1';

export class PgThemes implements ThemeRepo {
  constructor(private readonly db: PgDb) {}

  async current(tenantId: string): Promise<ThemeRevision | undefined> {
    const [row] = await this.db.query<ThemeRow>(LATEST, [tenantId]);
    return row && toRevision(row);
  }

  async save(input: Parameters<ThemeRepo['save']>[0]): Promise<ThemeRevision> {
    try {
      return await this.db.tx(async (tx): Promise<ThemeRevision> => {
        // The revision check and the insert hold the tenant's lock together, so two
        // administrators saving from the same revision (on any replicas) cannot both win.
        await lockTenant(tx, input.tenantId);
        const [latest] = await tx.query<ThemeRow>(LATEST, [input.tenantId]);
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
        const row: ThemeRow = {
          tenant_id: input.tenantId,
          revision: current + 1,
          document: JSON.stringify(input.theme),
          source: input.source,
          created_by: input.createdBy,
          created_at: input.at,
        };
        await tx.query(
          `INSERT INTO themes (tenant_id, revision, document, source, created_by, created_at)
           VALUES ($1, $2, $3, $4, $5, $6)`,
          [row.tenant_id, row.revision, row.document, row.source, row.created_by, row.created_at],
        );
        return toRevision(row);
      });
    } catch (err) {
      throw pgStoreError(err, `the theme of tenant ${input.tenantId}`);
    }
  }
}
