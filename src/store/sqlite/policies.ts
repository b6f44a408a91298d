import type Database from 'better-sqlite3';
import type { PolicyRecord, PolicyRepo } from '../registry-ports.js';
import { storeError, type Db } from './database.js';
import { writeTransaction } from './write-lock.js';

interface PolicyRow {
  tenant_id: string;
  version: number;
  text: string;
  updated_at: string;
}

function toRecord(r: PolicyRow): PolicyRecord {
  return { tenantId: r.tenant_id, version: r.version, text: r.text, updatedAt: r.updated_at };
}

export class SqlitePolicies implements PolicyRepo {
  private readonly select: Database.Statement<[string], PolicyRow>;
  private readonly upsert: Database.Statement<[string, number, string, string]>;
  private readonly bump: Database.Statement<[string]>;

  constructor(private readonly db: Db) {
    this.select = db.prepare<[string], PolicyRow>('SELECT * FROM policies WHERE tenant_id = ?');
    this.upsert = db.prepare<[string, number, string, string]>(
      `INSERT INTO policies (tenant_id, version, text, updated_at) VALUES (?, ?, ?, ?)
       ON CONFLICT (tenant_id) DO UPDATE SET version = excluded.version, text = excluded.text,
         updated_at = excluded.updated_at`,
    );
    // The daemon caches the compiled policy per tenant under this number.
    this.bump = db.prepare<[string]>(
      'UPDATE tenants SET registry_version = registry_version + 1 WHERE id = ?',
    );
  }

  async get(tenantId: string): Promise<PolicyRecord | undefined> {
    const r = this.select.get(tenantId);
    return r && toRecord(r);
  }

  async set(tenantId: string, text: string, at: string): Promise<PolicyRecord> {
    const tx = this.db.transaction((): PolicyRecord => {
      const found = this.select.get(tenantId);
      if (found !== undefined && found.text === text) return toRecord(found);
      const record: PolicyRecord = { tenantId, version: (found?.version ?? 0) + 1, text, updatedAt: at };
      this.upsert.run(tenantId, record.version, text, at);
      this.bump.run(tenantId);
      return record;
    });
    try {
      return await writeTransaction(this.db, tx);
    } catch (err) {
      throw storeError(err, `the policy of tenant ${tenantId}`);
    }
  }
}
