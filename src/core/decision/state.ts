import type { Actor } from '../actor.js';
import type { Capability } from '../capability.js';
import type { Micros } from '../money.js';
import type { Task } from '../task.js';

/** A standing claim or deferral on an effect key `(tenant, task_id, effect_key_step)`. */
export interface EffectKeyState {
  state: 'claimed' | 'deferred';
  intentId: string;
  /** who made the intent that holds the key */
  actorId: string;
  requestDigest: string;
  route: string;
  outcome: string;
  approvalId: string | null;
}

export interface ApprovalState {
  id: string;
  status: 'pending' | 'approved' | 'denied' | 'consumed';
  expiresAt: string;
  requestDigest: string;
  amountMicros: Micros;
}

/** Whatever a decision reads, loaded inside the transaction that will record it. */
export interface DecisionState {
  now: Date;
  approvalTier: number;
  caller: Actor;
  capability: Capability | undefined;
  task: Task | undefined;
  /** the task's root, when the root carries execution constraints */
  constraints: { rootId: string; plan: unknown; admittedCount: number; admittedMicros: Micros } | undefined;
  effectKey: EffectKeyState | undefined;
  /** what entitles the caller to the capability */
  holds: 'permission' | 'entitlement' | undefined;
  /** on resume: the approval the deferral waits on */
  approval: ApprovalState | undefined;
  /** brokered custody: why the surface cannot take operations, if it cannot */
  surfaceProblem: string | undefined;
}
