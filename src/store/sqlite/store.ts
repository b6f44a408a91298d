import type { Store } from '../ports.js';
import { SqliteAccessRequests } from './access-requests.js';
import { SqliteAnchors } from './anchors.js';
import { SqliteApprovals } from './approvals.js';
import { SqliteCapabilities } from './capabilities.js';
import { SqliteChannels } from './channels.js';
import { SqliteConsoleSessions } from './console-sessions.js';
import { SqliteConstraints } from './constraints.js';
import { openDatabase, type Db } from './database.js';
import { Checkpointer } from './checkpointer.js';
import { CommitQueue } from './commit-queue.js';
import { SqliteDecisions } from './decisions.js';
import { SqliteDiscovery } from './discovery.js';
import { SqliteEffects } from './effects.js';
import { SqliteEntitlements } from './entitlements.js';
import { thisProcess, type ExecutionOwner } from './execution-owner.js';
import { SqliteExecutions } from './executions.js';
import { SqliteReplicas } from './replicas.js';
import { SqliteActors, SqliteTenants } from './identity.js';
import { SqliteJournalExports } from './journal-export.js';
import { SqliteManagerCards } from './manager-cards.js';
import { backfillMerkleNodes, SqliteMerkleProofs } from './merkle-nodes.js';
import { SqliteSigningKeys } from './keys.js';
import { SqlitePermissions } from './permissions.js';
import { SqlitePolicies } from './policies.js';
import { SqlitePolicyShadows } from './policy-shadow.js';
import { SqliteRedactions } from './redactions.js';
import { SqliteReceipts } from './receipts.js';
import { SqliteSecrets } from './secrets.js';
import { SqliteSurfaces } from './surfaces.js';
import { SqliteTaskReads } from './task-reads.js';
import { SqliteThemes } from './themes.js';
import { SqliteNotify } from './notify.js';
import { SqliteOverview } from './overview.js';
import { SqliteTasks } from './tasks.js';
import { SqliteTokens } from './tokens.js';
import { WalSync } from './wal-sync.js';
import { writeTransaction, type LockWait } from './write-lock.js';
import type { CommitObserver } from '../commit-observer.js';

export class SqliteStore implements Store {
  readonly tenants: SqliteTenants;
  readonly actors: SqliteActors;
  readonly tokens: SqliteTokens;
  readonly keys: SqliteSigningKeys;
  readonly capabilities: SqliteCapabilities;
  readonly permissions: SqlitePermissions;
  readonly policies: SqlitePolicies;
  readonly shadows: SqlitePolicyShadows;
  readonly tasks: SqliteTasks;
  readonly decisions: SqliteDecisions;
  readonly effects: SqliteEffects;
  readonly surfaces: SqliteSurfaces;
  readonly executions: SqliteExecutions;
  readonly replicas = new SqliteReplicas();
  readonly secrets: SqliteSecrets;
  readonly taskReads: SqliteTaskReads;
  readonly constraints: SqliteConstraints;
  readonly approvals: SqliteApprovals;
  readonly receipts: SqliteReceipts;
  readonly discovery: SqliteDiscovery;
  readonly anchors: SqliteAnchors;
  readonly journalExports: SqliteJournalExports;
  readonly redactions: SqliteRedactions;
  readonly accessRequests: SqliteAccessRequests;
  readonly managerCards: SqliteManagerCards;
  readonly entitlements: SqliteEntitlements;
  readonly channels: SqliteChannels;
  readonly proofs: SqliteMerkleProofs;
  readonly themes: SqliteThemes;
  readonly notify: SqliteNotify;
  readonly overview: SqliteOverview;
  readonly consoleSessions: SqliteConsoleSessions;

  private readonly commits: CommitQueue;
  private readonly wal: WalSync | null;
  private readonly checkpointer: Checkpointer | null;

  private constructor(
    readonly db: Db,
    clock: () => Date,
    owner: ExecutionOwner,
    offload: boolean,
    quiet: (() => boolean) | undefined,
    observer: CommitObserver | undefined,
  ) {
    this.tenants = new SqliteTenants(db);
    this.actors = new SqliteActors(db);
    this.tokens = new SqliteTokens(db);
    this.keys = new SqliteSigningKeys(db);
    this.capabilities = new SqliteCapabilities(db);
    this.permissions = new SqlitePermissions(db);
    this.policies = new SqlitePolicies(db);
    this.shadows = new SqlitePolicyShadows(db);
    this.tasks = new SqliteTasks(db);
    // One group-commit queue: brokered outcomes and new decisions share each durable commit.
    this.wal = WalSync.of(db);
    this.checkpointer = offload && this.wal ? new Checkpointer(db) : null;
    const commits = (this.commits = new CommitQueue(
      db,
      undefined,
      this.wal,
      this.checkpointer,
      quiet ? { quiet } : null,
      observer ?? null,
    ));
    this.decisions = new SqliteDecisions(db, clock, commits, owner);
    this.effects = new SqliteEffects(db, clock);
    this.surfaces = new SqliteSurfaces(db, clock);
    this.executions = new SqliteExecutions(db, clock, commits, owner);
    this.secrets = new SqliteSecrets(db);
    this.taskReads = new SqliteTaskReads(db);
    this.constraints = new SqliteConstraints(db);
    this.approvals = new SqliteApprovals(db);
    this.receipts = new SqliteReceipts(db);
    this.discovery = new SqliteDiscovery(db);
    this.anchors = new SqliteAnchors(db);
    this.journalExports = new SqliteJournalExports(db.name);
    this.redactions = new SqliteRedactions(db);
    this.accessRequests = new SqliteAccessRequests(db);
    this.managerCards = new SqliteManagerCards(db);
    this.entitlements = new SqliteEntitlements(db);
    this.channels = new SqliteChannels(db);
    this.proofs = new SqliteMerkleProofs(db);
    this.themes = new SqliteThemes(db);
    this.notify = new SqliteNotify(db, commits);
    this.overview = new SqliteOverview(db);
    this.consoleSessions = new SqliteConsoleSessions(db);
  }

  /**
   * `clock` is what decisions are timed by; tests pass their own. Each open store is one
   * owner of brokered calls: a second store on the same file is another daemon.
   * `lockWait`: see write-lock.ts. `checkpointer`: a long-running server checkpoints the
   * WAL on a worker thread (checkpointer.ts) instead of inside a commit. `quiet`: true while
   * the server is answering at most one request, when a lone decision's fsync may run on the
   * event loop (commit-queue.ts).
   */
  static open(
    file: string,
    opts: {
      clock?: () => Date;
      lockWait?: LockWait;
      checkpointer?: boolean;
      quiet?: () => boolean;
      commits?: CommitObserver;
    } = {},
  ): SqliteStore {
    const db = openDatabase(file, opts.lockWait ? { lockWait: opts.lockWait } : {});
    backfillMerkleNodes(db);
    return new SqliteStore(
      db,
      opts.clock ?? (() => new Date()),
      thisProcess(),
      opts.checkpointer ?? false,
      opts.quiet,
      opts.commits,
    );
  }

  durable(): Promise<void> | undefined {
    return this.commits.durable();
  }

  async ping(): Promise<void> {
    // BEGIN IMMEDIATE takes the write lock: it proves the file is writable without writing.
    await writeTransaction(this.db, () => undefined);
  }

  async close(): Promise<void> {
    // Answers still waiting on an fsync get it before the connection goes.
    await this.commits.durable()?.catch(() => undefined);
    await this.checkpointer?.close();
    this.wal?.close();
    if (this.db.open) this.db.close();
  }
}
