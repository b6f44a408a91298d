import { join } from 'node:path';
import type {
  AccessRequestStore,
  ChannelRepo,
  EntitlementStore,
  ManagerCardStore,
} from '../../src/store/access-ports.js';
import type { ConsoleSessionRepo, ThemeRepo } from '../../src/store/console-ports.js';
import type { SecretRepo, SurfaceRepo } from '../../src/store/integration-ports.js';
import type { Discovery, ExecutionConstraints, Receipts, TaskReads } from '../../src/store/query-ports.js';
import type { CapabilityRepo, PermissionRepo, PolicyRepo, TaskRepo } from '../../src/store/registry-ports.js';
import { PgAccessRequests } from '../../src/store/postgres/access-requests.js';
import { PgCapabilities } from '../../src/store/postgres/capabilities.js';
import { PgChannels } from '../../src/store/postgres/channels.js';
import { PgConsoleSessions } from '../../src/store/postgres/console-sessions.js';
import { PgConstraints } from '../../src/store/postgres/constraints.js';
import { PgDb } from '../../src/store/postgres/database.js';
import { PgDiscovery } from '../../src/store/postgres/discovery.js';
import { PgEntitlements } from '../../src/store/postgres/entitlements.js';
import { PgManagerCards } from '../../src/store/postgres/manager-cards.js';
import { migrate } from '../../src/store/postgres/migrate.js';
import { PgPermissions } from '../../src/store/postgres/permissions.js';
import { PgPolicies } from '../../src/store/postgres/policies.js';
import { PgReceipts } from '../../src/store/postgres/receipts.js';
import { PgSecrets } from '../../src/store/postgres/secrets.js';
import { PgSurfaces } from '../../src/store/postgres/surfaces.js';
import { PgTaskReads } from '../../src/store/postgres/task-reads.js';
import { PgTasks } from '../../src/store/postgres/tasks.js';
import { PgThemes } from '../../src/store/postgres/themes.js';
import { SqliteConsoleSessions } from '../../src/store/sqlite/console-sessions.js';
import { SqliteStore } from '../../src/store/sqlite/store.js';
import { SqliteThemes } from '../../src/store/sqlite/themes.js';
import { freshDatabase, pgAvailable } from '../helpers/postgres.js';
import { tmpDir } from '../helpers/tmp.js';

/**
 * The registry, read and console ports of one adapter, on a fresh database, with a raw
 * `exec` for the rows other ports write (tenants, actors, admissions, journal rows): the
 * contract cases seed through it and then hold both adapters to the same expectations.
 */
export interface RegistryUnderTest {
  capabilities: CapabilityRepo;
  permissions: PermissionRepo;
  policies: PolicyRepo;
  tasks: TaskRepo;
  taskReads: TaskReads;
  constraints: ExecutionConstraints;
  discovery: Discovery;
  receipts: Receipts;
  secrets: SecretRepo;
  channels: ChannelRepo;
  themes: ThemeRepo;
  consoleSessions: ConsoleSessionRepo;
  accessRequests: AccessRequestStore;
  managerCards: ManagerCardStore;
  entitlements: EntitlementStore;
  surfaces: SurfaceRepo;
  /** One statement with `?` placeholders, run as is. */
  exec(sql: string, params?: unknown[]): Promise<void>;
  /** One integer column of the first row. */
  scalar(sql: string, params?: unknown[]): Promise<number>;
  close(): Promise<void>;
}

/** What the stores that read a clock (surfaces) are timed by: the same instant on both adapters. */
export const NOW = new Date('2026-03-01T00:00:00.000Z');
const CLOCK = () => NOW;

async function sqlite(): Promise<RegistryUnderTest> {
  const dir = tmpDir('svc-contract-');
  const store = SqliteStore.open(join(dir.path, 'svc.db'), { clock: CLOCK });
  return {
    capabilities: store.capabilities,
    permissions: store.permissions,
    policies: store.policies,
    tasks: store.tasks,
    taskReads: store.taskReads,
    constraints: store.constraints,
    discovery: store.discovery,
    receipts: store.receipts,
    secrets: store.secrets,
    channels: store.channels,
    themes: new SqliteThemes(store.db),
    consoleSessions: new SqliteConsoleSessions(store.db),
    accessRequests: store.accessRequests,
    managerCards: store.managerCards,
    entitlements: store.entitlements,
    surfaces: store.surfaces,
    exec: async (sql, params = []) => {
      store.db.prepare(sql).run(...params);
    },
    scalar: async (sql, params = []) =>
      Number(
        store.db
          .prepare(sql)
          .pluck()
          .get(...params),
      ),
    close: async () => {
      await store.close();
      dir.cleanup();
    },
  };
}

/** `?` placeholders as PostgreSQL's `$n`. */
function numbered(sql: string): string {
  let n = 0;
  return sql.replace(/\?/g, () => `$${++n}`);
}

async function postgres(): Promise<RegistryUnderTest> {
  const fresh = await freshDatabase();
  const db = await PgDb.connect(fresh.url, { poolSize: 4 });
  await migrate(db);
  return {
    capabilities: new PgCapabilities(db),
    permissions: new PgPermissions(db),
    policies: new PgPolicies(db),
    tasks: new PgTasks(db),
    taskReads: new PgTaskReads(db),
    constraints: new PgConstraints(db),
    discovery: new PgDiscovery(db),
    receipts: new PgReceipts(db),
    secrets: new PgSecrets(db),
    channels: new PgChannels(db),
    themes: new PgThemes(db),
    consoleSessions: new PgConsoleSessions(db),
    accessRequests: new PgAccessRequests(db),
    managerCards: new PgManagerCards(db),
    entitlements: new PgEntitlements(db),
    surfaces: new PgSurfaces(db, CLOCK),
    exec: async (sql, params = []) => {
      await db.query(numbered(sql), params);
    },
    scalar: async (sql, params = []) => {
      const [row] = await db.query<Record<string, unknown>>(numbered(sql), params);
      return Number(Object.values(row ?? {})[0]);
    },
    close: async () => {
      await db.close();
      await fresh.drop();
    },
  };
}

const server = await pgAvailable();

/** Each adapter with the reason it cannot run here, if any (printed, never silent). */
export const REGISTRY_ADAPTERS: [
  name: string,
  open: () => Promise<RegistryUnderTest>,
  skip: string | false,
][] = [
  ['sqlite', sqlite, false],
  ['postgres', postgres, 'skip' in server ? server.skip : false],
];
