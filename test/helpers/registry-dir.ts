import { addActor } from '../../src/provisioning/actor.js';
import { initDataDir } from '../../src/provisioning/init.js';
import { createTenant } from '../../src/provisioning/tenant.js';
import { DataDir } from '../../src/store/data-dir.js';
import { SqliteStore } from '../../src/store/sqlite/store.js';
import { tmpDir } from './tmp.js';

export interface RegistryDir {
  root: string;
  store: SqliteStore;
  now: Date;
  /** tenants.registry_version, read straight from the database */
  registryVersion: (tenantId?: string) => number;
  close: () => Promise<void>;
}

/**
 * A real data dir: tenant `acme` with humans alice (administrator) and bob (approver,
 * manager) and agents bot and bot2 (managed by bob); tenant `other` with its admin olga.
 */
export async function registryDir(): Promise<RegistryDir> {
  const tmp = tmpDir('svc-registry-');
  const now = new Date('2026-06-01T12:00:00.000Z');
  await initDataDir(tmp.path, { tenantId: 'acme', adminId: 'alice', now });
  const dir = new DataDir(tmp.path);
  const store = SqliteStore.open(dir.database);
  await createTenant(dir, store, { tenantId: 'other', adminId: 'olga', now });
  await addActor(store, { tenantId: 'acme', id: 'bob', kind: 'human', roles: ['approver', 'manager'] }, now);
  await addActor(store, { tenantId: 'acme', id: 'bot', kind: 'agent', managerId: 'bob' }, now);
  await addActor(store, { tenantId: 'acme', id: 'bot2', kind: 'agent', managerId: 'bob' }, now);
  return {
    root: tmp.path,
    store,
    now,
    registryVersion: (tenantId = 'acme') =>
      (
        store.db.prepare('SELECT registry_version AS v FROM tenants WHERE id = ?').get(tenantId) as {
          v: number;
        }
      ).v,
    close: async () => {
      await store.close();
      tmp.cleanup();
    },
  };
}
