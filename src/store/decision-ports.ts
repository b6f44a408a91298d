import type { Actor } from '../core/actor.js';
import type { PipelineRules } from '../core/decision/pipeline.js';
import type { DecisionRequest } from '../core/decision/request.js';
import type { Sealed } from '../core/decision/sealed.js';

export type { PendingExecution, Sealed, SealedReceipt } from '../core/decision/sealed.js';
export type { SurfaceCheck } from '../core/decision/surface.js';

export type { PolicyResolver, PolicySource, ResolvedPolicy } from '../core/decision/pipeline.js';

export interface DecisionStore {
  /**
   * Run the decision pipeline (core/decision/pipeline.ts) in one transaction: what it reads,
   * and the outcome with its journal record; the promise settles only once that transaction
   * is durable.
   */
  decide(req: DecisionRequest, caller: Actor, mode: 'new' | 'resume', rules: PipelineRules): Promise<Sealed>;
}
