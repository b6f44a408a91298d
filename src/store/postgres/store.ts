import { SvcError } from '../../core/errors.js';
import type { AccessPorts } from '../access-ports.js';
import type { ConsoleSessionRepo, ThemeRepo } from '../console-ports.js';
import type { DecisionStore } from '../decision-ports.js';
import type { EffectStore } from '../effect-ports.js';
import type { EvidencePorts } from '../evidence-ports.js';
import type { ExecutionStore, SecretRepo, SurfaceRepo } from '../integration-ports.js';
import type { Store } from '../ports.js';
import type { QueryPorts } from '../query-ports.js';
import type { CapabilityRepo, PermissionRepo, PolicyRepo, TaskRepo } from '../registry-ports.js';
import { PgDb, pgStoreError, type PgOptions } from './database.js';
import { PgActors, PgTenants } from './identity.js';
import { PgSigningKeys } from './keys.js';
import { migrate } from './migrate.js';
import { notYetOnPostgres } from './pending-ports.js';
import { RevocationFeed } from './revocation-feed.js';
import { PgTokens } from './tokens.js';

export interface PgStoreOptions extends PgOptions {
  /** What decisions are timed by; tests pass their own. */
  clock?: () => Date;
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
  readonly capabilities: CapabilityRepo = notYetOnPostgres('capabilities');
  readonly permissions: PermissionRepo = notYetOnPostgres('permissions');
  readonly policies: PolicyRepo = notYetOnPostgres('policies');
  readonly tasks: TaskRepo = notYetOnPostgres('tasks');
  readonly decisions: DecisionStore = notYetOnPostgres('decisions');
  readonly effects: EffectStore = notYetOnPostgres('effects');
  readonly surfaces: SurfaceRepo = notYetOnPostgres('surfaces');
  readonly executions: ExecutionStore = notYetOnPostgres('executions');
  readonly secrets: SecretRepo = notYetOnPostgres('secrets');
  readonly themes: ThemeRepo = notYetOnPostgres('themes');
  readonly consoleSessions: ConsoleSessionRepo = notYetOnPostgres('console sessions');
  readonly taskReads: QueryPorts['taskReads'] = notYetOnPostgres('task reads');
  readonly constraints: QueryPorts['constraints'] = notYetOnPostgres('execution constraints');
  readonly approvals: QueryPorts['approvals'] = notYetOnPostgres('approvals');
  readonly receipts: QueryPorts['receipts'] = notYetOnPostgres('receipts');
  readonly discovery: QueryPorts['discovery'] = notYetOnPostgres('discovery');
  readonly anchors: EvidencePorts['anchors'] = notYetOnPostgres('anchors');
  readonly proofs: EvidencePorts['proofs'] = notYetOnPostgres('proofs');
  readonly journalExports: EvidencePorts['journalExports'] = notYetOnPostgres('journal exports');
  readonly redactions: EvidencePorts['redactions'] = notYetOnPostgres('redactions');
  readonly accessRequests: AccessPorts['accessRequests'] = notYetOnPostgres('access requests');
  readonly managerCards: AccessPorts['managerCards'] = notYetOnPostgres('manager cards');
  readonly entitlements: AccessPorts['entitlements'] = notYetOnPostgres('entitlements');
  readonly channels: AccessPorts['channels'] = notYetOnPostgres('approval channels');

  private constructor(
    readonly db: PgDb,
    url: string,
    opts: PgStoreOptions,
  ) {
    this.revocations = new RevocationFeed(url, {
      connectTimeoutMs: opts.connectTimeoutMs ?? 10_000,
      applicationName: opts.applicationName ?? 'svc',
    });
    this.tenants = new PgTenants(db);
    this.actors = new PgActors(db);
    this.tokens = new PgTokens(db, this.revocations);
    this.keys = new PgSigningKeys(db);
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

  async close(): Promise<void> {
    await this.revocations.close();
    await this.db.close();
  }
}
