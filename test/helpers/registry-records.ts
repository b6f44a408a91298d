import type { Actor } from '../../src/core/actor.js';
import type { Capability } from '../../src/core/capability.js';
import type { Task } from '../../src/core/task.js';

/**
 * The registry records tests build, written once: each suite states only what it changes
 * (its time, its tenant, and the fields its case turns on).
 */

/** A tier-1, reversible, non-requestable read capability of `tenantId` costing one unit, made at `at`. */
export function capabilityRecord(
  tenantId: string,
  name: string,
  at: string,
  o: Partial<Capability> = {},
): Capability {
  return {
    tenantId,
    name,
    tier: 1,
    irreversible: false,
    custody: 'grant',
    actions: ['read'],
    costMicros: 1_000_000n,
    requestable: false,
    approvers: [],
    owners: [],
    surfaceId: null,
    operation: null,
    createdAt: at,
    updatedAt: at,
    ...o,
  };
}

/** An active root task of `tenantId` that alice sponsors with 100 units for bot, made at `at`. */
export function taskRecord(tenantId: string, id: string, at: string, o: Partial<Task> = {}): Task {
  return {
    tenantId,
    id,
    title: null,
    sponsorId: 'alice',
    status: 'active',
    parentId: null,
    rootId: id,
    budgetMicros: 100_000_000n,
    reservedMicros: 0n,
    actors: ['bot'],
    createdAt: at,
    closedAt: null,
    ...o,
  };
}

/** A human of `tenantId` with no roles, manager, certificate or display name, added at `at`. */
export function actorRecord(tenantId: string, id: string, at: string, o: Partial<Actor> = {}): Actor {
  return {
    tenantId,
    id,
    kind: 'human',
    roles: [],
    managerId: null,
    certSubject: null,
    displayName: null,
    createdAt: at,
    ...o,
  };
}
