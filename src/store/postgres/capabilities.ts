import type { Capability } from '../../core/capability.js';
import type { CapabilityRepo, PutResult } from '../registry-ports.js';
import { pgStoreError, type PgDb, type PgTx } from './database.js';
import { lockTenant } from './locks.js';
import { toCapability, type PgCapabilityRow } from './registry-rows.js';

/** The registration as stored, without its timestamps: what decides created/updated/unchanged. */
function columns(c: Capability) {
  return [
    c.tier,
    c.irreversible ? 1 : 0,
    c.custody,
    JSON.stringify(c.actions),
    c.costMicros.toString(),
    c.requestable ? 1 : 0,
    JSON.stringify(c.approvers),
    JSON.stringify(c.owners),
    c.surfaceId,
    c.operation,
  ] as const;
}

function sameRegistration(a: Capability, b: Capability): boolean {
  const x = columns(a);
  const y = columns(b);
  return x.every((v, i) => v === y[i]);
}

const SELECT_ONE = 'SELECT * FROM capabilities WHERE tenant_id = $1 AND name = $2';

/** Bumped in the same transaction as the change: the daemon caches the compiled policy under it. */
export async function bumpRegistry(tx: PgTx, tenantId: string): Promise<void> {
  await tx.query('UPDATE tenants SET registry_version = registry_version + 1 WHERE id = $1', [tenantId]);
}

export class PgCapabilities implements CapabilityRepo {
  constructor(private readonly db: PgDb) {}

  async put(cap: Capability): Promise<PutResult> {
    try {
      return await this.db.tx(async (tx): Promise<PutResult> => {
        // Every replica's put of this tenant's registry takes turns: the read below decides.
        await lockTenant(tx, cap.tenantId);
        const [found] = await tx.query<PgCapabilityRow>(SELECT_ONE, [cap.tenantId, cap.name]);
        if (found === undefined) {
          await tx.query(
            `INSERT INTO capabilities (tenant_id, name, tier, irreversible, custody, actions, cost_micros,
               requestable, approvers, owners, surface_id, operation, created_at, updated_at)
             VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14)`,
            [cap.tenantId, cap.name, ...columns(cap), cap.createdAt, cap.updatedAt],
          );
        } else if (sameRegistration(toCapability(found), cap)) {
          return 'unchanged';
        } else {
          await tx.query(
            `UPDATE capabilities SET tier = $3, irreversible = $4, custody = $5, actions = $6, cost_micros = $7,
               requestable = $8, approvers = $9, owners = $10, surface_id = $11, operation = $12, updated_at = $13
             WHERE tenant_id = $1 AND name = $2`,
            [cap.tenantId, cap.name, ...columns(cap), cap.updatedAt],
          );
        }
        await bumpRegistry(tx, cap.tenantId);
        return found === undefined ? 'created' : 'updated';
      });
    } catch (err) {
      throw pgStoreError(err, `capability ${cap.name} in tenant ${cap.tenantId}`);
    }
  }

  async get(tenantId: string, name: string): Promise<Capability | undefined> {
    const [r] = await this.db.query<PgCapabilityRow>(SELECT_ONE, [tenantId, name]);
    return r && toCapability(r);
  }

  async list(tenantId: string): Promise<Capability[]> {
    const rows = await this.db.query<PgCapabilityRow>(
      'SELECT * FROM capabilities WHERE tenant_id = $1 ORDER BY name COLLATE "C"',
      [tenantId],
    );
    return rows.map(toCapability);
  }
}
