import type Database from 'better-sqlite3';
import type { Capability, Custody } from '../../core/capability.js';
import type { CapabilityRepo, PutResult } from '../registry-ports.js';
import { storeError, type Db } from './database.js';
import { writeTransaction } from './write-lock.js';

/** A capabilities row read with safeIntegers (cost goes beyond 2^53). */
export interface CapabilityRow {
  tenant_id: string;
  name: string;
  tier: bigint;
  irreversible: bigint;
  custody: Custody;
  actions: string;
  cost_micros: bigint;
  requestable: bigint;
  approvers: string;
  owners: string;
  surface_id: string | null;
  operation: string | null;
  created_at: string;
  updated_at: string;
}

export function toCapability(r: CapabilityRow): Capability {
  return {
    tenantId: r.tenant_id,
    name: r.name,
    tier: Number(r.tier),
    irreversible: r.irreversible === 1n,
    custody: r.custody,
    actions: JSON.parse(r.actions) as string[],
    costMicros: r.cost_micros,
    requestable: r.requestable === 1n,
    approvers: JSON.parse(r.approvers) as string[],
    owners: JSON.parse(r.owners) as string[],
    surfaceId: r.surface_id,
    operation: r.operation,
    createdAt: r.created_at,
    updatedAt: r.updated_at,
  };
}

/** The registration as stored, without its timestamps: what decides created/updated/unchanged. */
function columns(c: Capability) {
  return {
    tier: c.tier,
    irreversible: c.irreversible ? 1 : 0,
    custody: c.custody,
    actions: JSON.stringify(c.actions),
    cost_micros: c.costMicros,
    requestable: c.requestable ? 1 : 0,
    approvers: JSON.stringify(c.approvers),
    owners: JSON.stringify(c.owners),
    surface_id: c.surfaceId,
    operation: c.operation,
  };
}

function sameRegistration(a: Capability, b: Capability): boolean {
  const x = columns(a);
  const y = columns(b);
  return (Object.keys(x) as (keyof typeof x)[]).every((k) => x[k] === y[k]);
}

export class SqliteCapabilities implements CapabilityRepo {
  private readonly selectOne: Database.Statement<[string, string], CapabilityRow>;
  private readonly selectAll: Database.Statement<[string], CapabilityRow>;
  private readonly insert: Database.Statement<[Record<string, unknown>]>;
  private readonly update: Database.Statement<[Record<string, unknown>]>;
  private readonly bump: Database.Statement<[string]>;

  constructor(private readonly db: Db) {
    // Every integer column comes back as a bigint: cost_micros goes beyond 2^53.
    this.selectOne = db
      .prepare<[string, string], CapabilityRow>('SELECT * FROM capabilities WHERE tenant_id = ? AND name = ?')
      .safeIntegers(true);
    this.selectAll = db
      .prepare<[string], CapabilityRow>('SELECT * FROM capabilities WHERE tenant_id = ? ORDER BY name')
      .safeIntegers(true);
    this.insert = db.prepare<[Record<string, unknown>]>(
      `INSERT INTO capabilities (tenant_id, name, tier, irreversible, custody, actions, cost_micros, requestable,
         approvers, owners, surface_id, operation, created_at, updated_at)
       VALUES (@tenant_id, @name, @tier, @irreversible, @custody, @actions, @cost_micros, @requestable,
         @approvers, @owners, @surface_id, @operation, @created_at, @updated_at)`,
    );
    this.update = db.prepare<[Record<string, unknown>]>(
      `UPDATE capabilities SET tier = @tier, irreversible = @irreversible, custody = @custody,
         actions = @actions, cost_micros = @cost_micros, requestable = @requestable, approvers = @approvers,
         owners = @owners, surface_id = @surface_id, operation = @operation, updated_at = @updated_at
       WHERE tenant_id = @tenant_id AND name = @name`,
    );
    // The daemon caches the compiled policy and the verb list per tenant under this number.
    this.bump = db.prepare<[string]>(
      'UPDATE tenants SET registry_version = registry_version + 1 WHERE id = ?',
    );
  }

  async put(cap: Capability): Promise<PutResult> {
    const row = { tenant_id: cap.tenantId, name: cap.name, ...columns(cap), updated_at: cap.updatedAt };
    const tx = this.db.transaction((): PutResult => {
      const found = this.selectOne.get(cap.tenantId, cap.name);
      if (found === undefined) {
        this.insert.run({ ...row, created_at: cap.createdAt });
      } else if (sameRegistration(toCapability(found), cap)) {
        return 'unchanged';
      } else {
        this.update.run(row);
      }
      this.bump.run(cap.tenantId);
      return found === undefined ? 'created' : 'updated';
    });
    try {
      return await writeTransaction(this.db, tx);
    } catch (err) {
      throw storeError(err, `capability ${cap.name} in tenant ${cap.tenantId}`);
    }
  }

  async get(tenantId: string, name: string): Promise<Capability | undefined> {
    const r = this.selectOne.get(tenantId, name);
    return r && toCapability(r);
  }

  async list(tenantId: string): Promise<Capability[]> {
    return this.selectAll.all(tenantId).map(toCapability);
  }
}
