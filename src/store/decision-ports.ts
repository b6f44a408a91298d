import type { Actor } from '../core/actor.js';
import type { DecisionRules } from '../core/decision/decide.js';
import type { OpenApprovalLimits } from '../core/decision/open-approvals.js';
import type { DecisionRequest } from '../core/decision/request.js';
import type { Sealed } from '../core/decision/sealed.js';
import type { SurfaceCheck } from '../core/decision/surface.js';

export type { PendingExecution, Sealed, SealedReceipt } from '../core/decision/sealed.js';
export type { SurfaceCheck } from '../core/decision/surface.js';

/** A tenant's policy source as stored: its text (null: none installed) and its registered verbs. */
export interface PolicySource {
  text: string | null;
  verbs: string[];
}

/**
 * Compiled tenant policies, held by the daemon per registry version. Split in two so an
 * async adapter can ask for a cached version first and, only on a miss, load the source
 * (awaiting its store) and hand it over to compile; SQLite does both synchronously inside
 * the decision's transaction.
 */
export interface PolicyResolver {
  /** the compiled policy of this registry version, if held */
  cached(tenantId: string, registryVersion: number): DecisionRules['policy'] | undefined;
  /** compile and hold the source read for this registry version */
  install(tenantId: string, registryVersion: number, source: PolicySource): DecisionRules['policy'];
}

export interface DecisionStore {
  /**
   * Load what the decision reads, decide (pure), and record the outcome with its journal
   * record, in one transaction; the promise settles only once that transaction is durable.
   */
  decide(
    req: DecisionRequest,
    caller: Actor,
    mode: 'new' | 'resume',
    rules: {
      policy: PolicyResolver;
      constraints: DecisionRules['constraints'];
      surface?: SurfaceCheck;
      /** the bound on open approvals; DEFAULT_OPEN_APPROVAL_LIMITS when absent */
      openApprovals?: OpenApprovalLimits;
    },
  ): Promise<Sealed>;
}
