import type { Actor } from '../core/actor.js';

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

export interface SigningKeyRecord {
  tenantId: string;
  keyId: string;
  /** base64 of the 32 raw Ed25519 public key bytes */
  publicKey: string;
  algorithm: 'ed25519';
  status: 'active' | 'retired';
  createdAt: string;
  retiredAt: string | null;
}

export interface NewTenant {
  tenant: Tenant;
  signingKey: Omit<SigningKeyRecord, 'status' | 'retiredAt'>;
  admin?: Actor;
  adminToken?: TokenRecord;
}

export interface TenantRepo {
  /** The tenant, its first signing key and, optionally, its first administrator and token. */
  create(input: NewTenant): Promise<void>;
  get(id: string): Promise<Tenant | undefined>;
  list(): Promise<Tenant[]>;
}

export interface ActorRepo {
  add(actor: Actor): Promise<void>;
  get(tenantId: string, id: string): Promise<Actor | undefined>;
  list(tenantId: string): Promise<Actor[]>;
  findByCertSubject(subject: string): Promise<Actor | undefined>;
}

export interface TokenRepo {
  insert(token: TokenRecord): Promise<void>;
  find(id: string): Promise<TokenRecord | undefined>;
  list(tenantId: string, actorId?: string): Promise<TokenSummary[]>;
  /** False when no such token exists in the tenant; revoking twice keeps the first time. */
  revoke(tenantId: string, id: string, at: string): Promise<boolean>;
}

export interface SigningKeyRepo {
  active(tenantId: string): Promise<SigningKeyRecord | undefined>;
  list(tenantId: string): Promise<SigningKeyRecord[]>;
  /** Retire the active key and make `next` active, in one transaction. */
  rotate(next: Omit<SigningKeyRecord, 'status' | 'retiredAt'>): Promise<SigningKeyRecord>;
}

export interface Store {
  readonly tenants: TenantRepo;
  readonly actors: ActorRepo;
  readonly tokens: TokenRepo;
  readonly keys: SigningKeyRepo;
  /** Throws unless the store is open and accepts writes. */
  ping(): Promise<void>;
  close(): Promise<void>;
}
