import type { Actor } from '../core/actor.js';
import type { DecisionRules } from '../core/decision/decide.js';
import type { ConflictCode, NoDeferral } from '../core/decision/outcome.js';
import type { DecisionRequest } from '../core/decision/request.js';
import type { Micros } from '../core/money.js';

/** Resolves a tenant's policy inside the decision's transaction (cached by the daemon). */
export interface PolicyResolver {
  resolve(
    tenantId: string,
    registryVersion: number,
    load: () => { text: string | null; verbs: string[] },
  ): DecisionRules['policy'];
}

/**
 * Brokered custody, step 7: whether the capability's surface takes the operation, judged
 * inside the decision's transaction from the surface's stored state (undefined: never
 * rotated or revoked). `credentialRef` is the reference the execution will use.
 */
export type SurfaceCheck = (q: {
  tenantId: string;
  surfaceId: string;
  operation: string;
  state: { credentialRef: string; status: 'active' | 'revoked' } | undefined;
}) => { ok: true; credentialRef: string } | { ok: false; problem: string };

/** An allowed brokered decision's durable intent to execute, committed with the decision. */
export interface PendingExecution {
  executionId: string;
  surfaceId: string;
  operation: string;
  credentialRef: string;
}

export interface SealedReceipt {
  receiptId: string;
  sequence: number;
  recordHash: string;
  occurredAt: string;
  record: Record<string, unknown>;
}

export type Sealed =
  | NoDeferral
  | { kind: 'conflict'; code: ConflictCode; reason: string; remedy: string; intentId: string; prior: string }
  | {
      kind: 'sealed';
      outcome: 'allowed' | 'refused' | 'deferred';
      intentId: string;
      code?: string;
      reason?: string;
      remedy?: string;
      amountMicros: Micros;
      receipt: SealedReceipt;
      grant?: { grantId: string; expiresAt: string };
      approval?: { approvalId: string; status: string; expiresAt?: string };
      execution?: PendingExecution;
    };

export interface DecisionStore {
  /**
   * Load what the decision reads, decide (pure), and record the outcome with its journal
   * record, in one transaction; the promise settles only once that transaction is durable.
   */
  decide(
    req: DecisionRequest,
    caller: Actor,
    mode: 'new' | 'resume',
    rules: { policy: PolicyResolver; constraints: DecisionRules['constraints']; surface?: SurfaceCheck },
  ): Promise<Sealed>;
}
