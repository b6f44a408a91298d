import { SvcError } from '../../core/errors.js';
import type { AccessPorts } from '../access-ports.js';
import type { ConsoleSessionRepo, ThemeRepo } from '../console-ports.js';
import type { SecretRepo, SurfaceRepo } from '../integration-ports.js';
import type { PoolStats, Store } from '../ports.js';
import type { QueryPorts } from '../query-ports.js';
import type { CapabilityRepo, PermissionRepo, PolicyRepo, TaskRepo } from '../registry-ports.js';
import { PgAccessRequests } from './access-requests.js';
import { PgCapabilities } from './capabilities.js';
import { PgChannels } from './channels.js';
import { PgConsoleSessions } from './console-sessions.js';
import { PgConstraints } from './constraints.js';
import { PgDb, pgStoreError, type PgOptions } from './database.js';
import { PgDiscovery } from './discovery.js';
import { PgEntitlements } from './entitlements.js';
import { PgActors, PgTenants } from './identity.js';
import { PgAnchors } from './anchors.js';
import { PgApprovals } from './approvals.js';
import { PgCommitQueue } from './commit-queue.js';
import { PgDecisions } from './decisions.js';
import { PgEffects } from './effects.js';
import { PgExecutions } from './executions.js';
import { PgJournalExports } from './journal-export.js';
import { PgMerkleProofs } from './merkle-nodes.js';
import { PgRedactions } from './redactions.js';
import { replicaOwner } from './replica.js';
import { PgReplicas } from './replicas.js';
import { PgSigningKeys } from './keys.js';
import { PgManagerCards } from './manager-cards.js';
import { migrate } from './migrate.js';
import { PgPermissions } from './permissions.js';
import { PgPolicies } from './policies.js';
import { PgPolicyShadows } from './policy-shadow.js';
import { PgReceipts } from './receipts.js';
import { PgSealedKeys } from './sealed-keys.js';
import { PgSecrets } from './secrets.js';
import { PgSurfaces } from './surfaces.js';
import { PgTaskReads } from './task-reads.js';
import { PgTasks } from './tasks.js';
import { PgThemes } from './themes.js';
import { PgNotify } from './notify.js';
import { PgOverview } from './overview.js';
import type { NotifyRepo } from '../notify-ports.js';
import { RevocationFeed } from './revocation-feed.js';
import { PgTokens } from './tokens.js';

export interface PgStoreOptions extends PgOptions {
  /** What decisions are timed by; tests pass their own. */
  clock?: () => Date;
  /** This replica's stable name (replica.ts); default `$SVC_REPLICA_ID`, else the host name. */
  replicaId?: string;
}

/**
 * The store on PostgreSQL: several daemon replicas share one database. Opening connects,
 * applies pending migrations once (migrate.ts) and builds the repositories over one pool.
 */
export class PgStore implements Store {
  readonly tenants: PgTenants;
  readonly actors: PgActors;
  readonly tokens: PgTokens;
  readonly keys: PgSigningKeys;
  readonly revocations: RevocationFeed;
  readonly capabilities: CapabilityRepo;
  readonly permissions: PermissionRepo;
  readonly policies: PolicyRepo;
  readonly shadows: PgPolicyShadows;
  readonly tasks: TaskRepo;
  readonly decisions: PgDecisions;
  readonly effects: PgEffects;
  readonly surfaces: SurfaceRepo;
  readonly executions: PgExecutions;
  readonly replicas: PgReplicas;
  readonly secrets: SecretRepo;
  readonly sealedKeys: PgSealedKeys;
  readonly themes: ThemeRepo;
  readonly notify: NotifyRepo;
  readonly overview: PgOverview;
  readonly consoleSessions: ConsoleSessionRepo;
  readonly taskReads: QueryPorts['taskReads'];
  readonly constraints: QueryPorts['constraints'];
  readonly approvals: PgApprovals;
  readonly receipts: QueryPorts['receipts'];
  readonly discovery: QueryPorts['discovery'];
  readonly anchors: PgAnchors;
  readonly proofs: PgMerkleProofs;
  readonly journalExports: PgJournalExports;
  readonly redactions: PgRedactions;
  readonly accessRequests: AccessPorts['accessRequests'];
  readonly managerCards: AccessPorts['managerCards'];
  readonly entitlements: AccessPorts['entitlements'];
  readonly channels: AccessPorts['channels'];

  private constructor(
    readonly db: PgDb,
    url: string,
    opts: PgStoreOptions,
  ) {
    this.revocations = new RevocationFeed(() => db.currentUrl(), {
      connectTimeoutMs: opts.connectTimeoutMs ?? 10_000,
      applicationName: opts.applicationName ?? 'svc',
    });
    this.tenants = new PgTenants(db);
    this.actors = new PgActors(db);
    this.tokens = new PgTokens(db, this.revocations);
    this.keys = new PgSigningKeys(db);
    this.capabilities = new PgCapabilities(db);
    this.permissions = new PgPermissions(db);
    this.policies = new PgPolicies(db);
    this.shadows = new PgPolicyShadows(db);
    this.tasks = new PgTasks(db);
    this.secrets = new PgSecrets(db);
    this.sealedKeys = new PgSealedKeys(db);
    this.themes = new PgThemes(db);
    this.notify = new PgNotify(db);
    this.overview = new PgOverview(db);
    this.consoleSessions = new PgConsoleSessions(db);
    this.taskReads = new PgTaskReads(db);
    this.constraints = new PgConstraints(db);
    this.receipts = new PgReceipts(db);
    this.discovery = new PgDiscovery(db);
    this.channels = new PgChannels(db);
    this.accessRequests = new PgAccessRequests(db);
    this.managerCards = new PgManagerCards(db);
    this.entitlements = new PgEntitlements(db);
    // One group-commit queue: brokered outcomes and new decisions share each commit.
    const clock = opts.clock ?? (() => new Date());
    const commits = new PgCommitQueue(db);
    const owner = replicaOwner(opts.replicaId);
    this.decisions = new PgDecisions(commits, clock, owner);
    this.effects = new PgEffects(db, clock);
    this.executions = new PgExecutions(db, clock, commits, owner);
    this.replicas = new PgReplicas(db, clock, owner, this.executions);
    this.approvals = new PgApprovals(db);
    this.anchors = new PgAnchors(db);
    this.proofs = new PgMerkleProofs(db);
    this.journalExports = new PgJournalExports(db);
    this.redactions = new PgRedactions(db);
    this.surfaces = new PgSurfaces(db, clock);
  }

  static async open(url: string, opts: PgStoreOptions = {}): Promise<PgStore> {
    const db = await PgDb.connect(url, opts);
    try {
      await migrate(db);
    } catch (err) {
      await db.close();
      const mapped = pgStoreError(err, 'the schema');
      if (mapped instanceof SvcError) throw mapped;
      throw new SvcError(
        'unavailable',
        `cannot migrate the database ${db.redactedUrl}: ${(err as Error).message}`,
        {
          cause: err,
        },
      );
    }
    return new PgStore(db, url, opts);
  }

  async ping(): Promise<void> {
    let readOnly: string | undefined;
    try {
      [{ transaction_read_only: readOnly } = { transaction_read_only: undefined }] = await this.db.query<{
        transaction_read_only: string;
      }>('SHOW transaction_read_only');
    } catch (err) {
      const mapped = pgStoreError(err, 'the database');
      throw mapped instanceof SvcError
        ? mapped
        : new SvcError('unavailable', `the database ${this.db.redactedUrl} does not answer`, { cause: err });
    }
    // A standby (or a read-only default) answers queries but would refuse every decision.
    if (readOnly !== 'off') {
      throw new SvcError('unavailable', `the database ${this.db.redactedUrl} accepts no writes (a standby?)`);
    }
  }

  /** A PostgreSQL commit is durable before any session can see it. */
  poolStats(): PoolStats {
    const p = this.db.pool;
    return { total: p.totalCount, idle: p.idleCount, waiting: p.waitingCount };
  }

  durable(): undefined {
    return undefined;
  }

  async close(): Promise<void> {
    await this.executions.release();
    await this.revocations.close();
    await this.db.close();
  }
}
