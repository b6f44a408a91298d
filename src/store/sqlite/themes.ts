import { SvcError } from '../../core/errors.js';
import type { Theme } from '../../core/theme/theme.js';
import type { ThemeRepo, ThemeRevision } from '../console-ports.js';
import { prep, storeError, type Db } from './database.js';

interface ThemeRow {
  tenant_id: string;
  revision: number;
  document: string;
  source: 'install' | 'editor';
  created_by: string | null;
  created_at: string;
}

const toRevision = (r: ThemeRow): ThemeRevision => ({
  tenantId: r.tenant_id,
  revision: r.revision,
  theme: JSON.parse(r.document) as Theme,
  source: r.source,
  createdBy: r.created_by,
  createdAt: r.created_at,
});

const LATEST = 'SELECT * FROM themes WHERE tenant_id = ? ORDER BY revision DESC LIMIT 1';

export class SqliteThemes implements ThemeRepo {
  constructor(private readonly db: Db) {}

  async current(tenantId: string): Promise<ThemeRevision | undefined> {
    const row = prep(this.db, LATEST).get(tenantId) as ThemeRow | undefined;
    return row && toRevision(row);
  }

  async save(input: Parameters<ThemeRepo['save']>[0]): Promise<ThemeRevision> {
    // IMMEDIATE: the revision check and the insert hold the write lock together, so two
    // administrators saving from the same revision cannot both win.
    const tx = this.db.transaction((): ThemeRevision => {
      const latest = prep(this.db, LATEST).get(input.tenantId) as ThemeRow | undefined;
      const current = latest?.revision ?? 0;
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
      prep(
        this.db,
        `INSERT INTO themes (tenant_id, revision, document, source, created_by, created_at)
         VALUES (@tenant_id, @revision, @document, @source, @created_by, @created_at)`,
      ).run(row);
      return toRevision(row);
    });
    try {
      return tx.immediate();
    } catch (err) {
      throw storeError(err, `the theme of tenant ${input.tenantId}`);
    }
  }
}
