import type { Capability } from '../core/capability.js';
import type {
  PolicyAuthorship,
  PolicyRecord,
  PolicyVersion,
  PolicyVersionSummary,
} from '../core/policy-version.js';
import type { Micros } from '../core/money.js';
import type { Task } from '../core/task.js';

/**
 * Registrations an operator makes: capabilities, standing permissions, the tenant's policy
 * text and tasks. Each method is one transaction. `put`-style methods are idempotent so a
 * declarative `svc apply` run twice changes nothing.
 */
export type PutResult = 'created' | 'updated' | 'unchanged';

// Setting a policy is a use case of core (core/policy-version.ts): its record type lives there.
export type { PolicyRecord } from '../core/policy-version.js';

export interface Permission {
  tenantId: string;
  actorId: string;
  capability: string;
  grantedAt: string;
}

export interface Page<T> {
  items: T[];
  /** opaque; undefined on the last page */
  nextCursor: string | undefined;
}

export interface CapabilityRepo {
  put(cap: Capability): Promise<PutResult>;
  get(tenantId: string, name: string): Promise<Capability | undefined>;
  list(tenantId: string): Promise<Capability[]>;
}

export interface PermissionRepo {
  grant(p: Permission): Promise<PutResult>;
  /** false when there was nothing to revoke */
  revoke(tenantId: string, actorId: string, capability: string): Promise<boolean>;
  list(tenantId: string, actorId?: string): Promise<Permission[]>;
}

export interface PolicyRepo {
  get(tenantId: string): Promise<PolicyRecord | undefined>;
  /** store a new text and keep it in the history (unchanged text keeps the version) */
  set(tenantId: string, text: string, at: string, by?: PolicyAuthorship): Promise<PolicyRecord>;
  /** the stored versions, newest first, without their texts; `before`: page back from that version */
  history(tenantId: string, opts: { limit: number; before?: number }): Promise<PolicyVersionSummary[]>;
  /** one stored version with its text */
  version(tenantId: string, version: number): Promise<PolicyVersion | undefined>;
}

export interface TaskRepo {
  create(task: Task): Promise<void>;
  get(tenantId: string, id: string): Promise<Task | undefined>;
  /** ordered by id; `cursor` is the last id of the previous page */
  list(tenantId: string, opts: { limit: number; after?: string; visibleTo?: string }): Promise<Task[]>;
  close(tenantId: string, id: string, at: string): Promise<Task>;
  /** refused when the new budget is below what is already reserved */
  setBudget(tenantId: string, id: string, budget: Micros): Promise<Task>;
  /** add agents to a task (idempotent) */
  assign(tenantId: string, id: string, actorIds: string[]): Promise<Task>;
}
