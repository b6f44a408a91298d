import type { FastifyInstance } from 'fastify';
import { buildDaemon, daemonOpenApi } from '../../src/daemon/app.js';
import type { AuthMode } from '../../src/http/auth.js';
import { daemonDeps } from '../../src/daemon/wiring.js';
import { addActor } from '../../src/provisioning/actor.js';
import { initDataDir } from '../../src/provisioning/init.js';
import { createTenant } from '../../src/provisioning/tenant.js';
import { issueToken } from '../../src/provisioning/token.js';
import { DataDir } from '../../src/store/data-dir.js';
import { openStore } from '../../src/store/open.js';
import type { Store } from '../../src/store/ports.js';
import { SqliteStore } from '../../src/store/sqlite/store.js';
import { DAEMON_WAIT, type LockWait } from '../../src/store/sqlite/write-lock.js';
import { watchConformance } from './openapi-conformance.js';
import { tmpDir } from './tmp.js';

export interface Fixture<S extends Store = SqliteStore> {
  dir: DataDir;
  store: S;
  app: FastifyInstance;
  /** admin token of tenant `acme` (human alice, administrator + operator + approver) */
  adminToken: string;
  now: { value: Date };
  token: (tenantId: string, actorId: string, ttlMs?: number) => Promise<string>;
  close: () => Promise<void>;
}

/**
 * A real data dir on disk with tenant `acme` (admin alice) and tenant `other` (admin olga).
 * The store waits for SQLite's write lock as the daemon's does (`lockWait` overrides it);
 * with `postgres` (an empty database's URL) the store is that database instead.
 */
export async function fixture(opts?: { authMode?: AuthMode; lockWait?: LockWait }): Promise<Fixture>;
export async function fixture(opts: { authMode?: AuthMode; postgres: string }): Promise<Fixture<Store>>;
export async function fixture(
  opts: { authMode?: AuthMode; lockWait?: LockWait; postgres?: string } = {},
): Promise<Fixture<Store>> {
  const tmp = tmpDir();
  const now = { value: new Date('2026-06-01T12:00:00.000Z') };
  const init = await initDataDir(tmp.path, {
    tenantId: 'acme',
    adminId: 'alice',
    now: now.value,
    ...(opts.postgres !== undefined ? { store: opts.postgres } : {}),
  });
  const dir = new DataDir(tmp.path, opts.postgres);
  const store: Store =
    opts.postgres !== undefined
      ? await openStore(opts.postgres, { clock: () => now.value, applicationName: 'svc test fixture' })
      : SqliteStore.open(dir.database, {
          clock: () => now.value,
          lockWait: opts.lockWait ?? DAEMON_WAIT,
        });
  await createTenant(dir, store, { tenantId: 'other', adminId: 'olga', now: now.value });
  await addActor(store, { tenantId: 'acme', id: 'bot', kind: 'agent', managerId: 'alice' }, now.value);
  const deps = daemonDeps(dir, store, { authMode: opts.authMode ?? 'token', clock: () => now.value });
  const app = buildDaemon(deps, { logger: false });
  // Every response any test provokes is checked against the daemon's own OpenAPI document.
  const conformance = watchConformance(app, daemonOpenApi(deps));
  await app.ready();
  return {
    dir,
    store,
    app,
    adminToken: init.admin_token,
    now,
    token: async (tenantId, actorId, ttlMs = 30 * 86_400_000) =>
      (await issueToken(store, { tenantId, actorId, ttlMs, now: now.value })).token,
    close: async () => {
      await app.close();
      await store.close();
      tmp.cleanup();
      const violations = conformance.violations();
      if (violations.length > 0) {
        throw new Error(`responses that break the OpenAPI document:\n${violations.join('\n')}`);
      }
    },
  };
}
