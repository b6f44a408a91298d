import type { NotifyRepo } from './notify-ports.js';
import type { PolicyShadowRepo } from './shadow-ports.js';
import type { Actor } from '../core/actor.js';
import type { SealedKeyRepo } from './sealed-key-ports.js';
import type { NewSigningKey, SigningKeyRecord } from '../core/signing-key.js';
import type { AccessPorts } from './access-ports.js';
import type { ConsoleSessionRepo, ThemeRepo } from './console-ports.js';
import type { QueryPorts } from './query-ports.js';
import type { OverviewReads } from './overview-ports.js';
import type { DecisionStore } from './decision-ports.js';
import type { EffectStore } from './effect-ports.js';
import type { ExecutionStore, SecretRepo, SurfaceRepo } from './integration-ports.js';
import type { EvidencePorts } from './evidence-ports.js';
import type { CapabilityRepo, PermissionRepo, PolicyRepo, TaskRepo } from './registry-ports.js';
import type { ReplicaRepo } from './replica-ports.js';

/**
 * Store ports. Every method is async so the PostgreSQL adapter fits behind the same
 * interface; each method is one transaction, so a composite change (a tenant with its
 * key and first administrator) is all or nothing on every adapter.
 */
export interface Tenant {
  id: string;
  createdAt: string;
}

export interface TokenRecord {
  id: string;
  tenantId: string;
  actorId: string;
  secretHash: Uint8Array;
  label: string | null;
  createdAt: string;
  expiresAt: string;
  revokedAt: string | null;
}

export type TokenSummary = Omit<TokenRecord, 'secretHash'>;

export type { NewSigningKey, SigningKeyRecord };

export interface NewTenant {
  tenant: Tenant;
  signingKey: NewSigningKey;
  admin?: Actor;
  adminToken?: TokenRecord;
}

export interface TenantRepo {
  /** The tenant, its first signing key and, optionally, its first administrator and token. */
  create(input: NewTenant): Promise<void>;
  get(id: string): Promise<Tenant | undefined>;
  list(): Promise<Tenant[]>;
  /** At or above this tier a capability waits for a person's approval; undefined: no such tenant. */
  approvalTier(id: string): Promise<number | undefined>;
}

export interface ActorRepo {
  add(actor: Actor): Promise<void>;
  get(tenantId: string, id: string): Promise<Actor | undefined>;
  list(tenantId: string): Promise<Actor[]>;
  findByCertSubject(subject: string): Promise<Actor | undefined>;
}

export interface TokenRepo {
  insert(token: TokenRecord): Promise<void>;
  /** A miss costs what a hit costs (no token-id oracle); adapters keep it so. */
  find(id: string): Promise<TokenRecord | undefined>;
  list(tenantId: string, actorId?: string): Promise<TokenSummary[]>;
  /** False when no such token exists in the tenant; revoking twice keeps the first time. */
  revoke(tenantId: string, id: string, at: string): Promise<boolean>;
  /**
   * A mark that moves whenever a token or actor may have changed since it was last read:
   * a write through this repo, or a commit by any other process or connection. The daemon
   * caches verified tokens under it and forgets them all when it moves, so it must be read
   * from the store's current state on every call (cheaply: it runs once per request).
   * Moving too often only costs lookups; missing a change would keep a revoked token alive.
   */
  changeMark(): Promise<string>;
}

export interface SigningKeyRepo {
  active(tenantId: string): Promise<SigningKeyRecord | undefined>;
  list(tenantId: string): Promise<SigningKeyRecord[]>;
  /** Retire the active key and make `next` active, in one transaction. */
  rotate(next: NewSigningKey): Promise<SigningKeyRecord>;
}

/**
 * `QueryPorts` (query-ports.ts): tasks, constraints, approvals, receipts and discovery as callers read them;
 * `AccessPorts` (access-ports.ts): access requests, manager cards, entitlements and approval channels.
 */
export interface Store extends QueryPorts, EvidencePorts, AccessPorts {
  readonly tenants: TenantRepo;
  readonly actors: ActorRepo;
  readonly tokens: TokenRepo;
  readonly keys: SigningKeyRepo;
  readonly capabilities: CapabilityRepo;
  readonly permissions: PermissionRepo;
  readonly policies: PolicyRepo;
  /** A tenant's shadow policy and its recorded differences (issue 27). */
  readonly shadows: PolicyShadowRepo;
  readonly tasks: TaskRepo;
  readonly decisions: DecisionStore;
  readonly effects: EffectStore;
  readonly surfaces: SurfaceRepo;
  readonly executions: ExecutionStore;
  /** The daemon replicas on a PostgreSQL database (issue 28); refused on SQLite. */
  readonly replicas: ReplicaRepo;
  readonly secrets: SecretRepo;
  /** The console's theme revisions and sign-in sessions. */
  readonly themes: ThemeRepo;
  readonly consoleSessions: ConsoleSessionRepo;
  /** Notification destinations, the outbox and its deliveries (issue 26). */
  readonly notify: NotifyRepo;
  /** The console overview's bounded reads (issue 30). */
  readonly overview: OverviewReads;
  /** Throws unless the store is open and accepts writes. */
  ping(): Promise<void>;
  /**
   * Undefined when everything committed so far is durable, else a promise that settles
   * when it is. A store whose commits are visible before their fsync (SQLite's commit queue)
   * makes replies that show committed state wait for it; others always return undefined.
   */
  durable(): Promise<void> | undefined;
  /** PostgreSQL: the connection pool's state now (metrics); absent on SQLite. */
  poolStats?(): PoolStats;
  /** PostgreSQL: keys sealed in the database under a KEK; absent on SQLite, which keeps key files. */
  readonly sealedKeys?: SealedKeyRepo;
  close(): Promise<void>;
}

export interface PoolStats {
  /** connections open, idle or in use */
  total: number;
  idle: number;
  /** queries waiting for a connection */
  waiting: number;
}
