import { SvcError } from '../errors.js';
import type { Outcome } from './outcome.js';
import type { DecisionRequest } from './request.js';

/**
 * How many approvals may stand open (pending and not expired) at once. Without a bound one
 * agent can open thousands and bury every other request in the approvers' queue; the
 * bound is per requester and per task so that one busy task cannot use up an agent's share
 * elsewhere, nor one agent a shared task's.
 */
export interface OpenApprovalLimits {
  perActor: number;
  perTask: number;
}

/** A human works through a few dozen open approvals; more than this from one agent is a flood. */
export const DEFAULT_OPEN_APPROVAL_LIMITS: OpenApprovalLimits = { perActor: 50, perTask: 20 };

/** Open approvals read in the decision's transaction, before this one would be opened. */
export interface OpenApprovalCounts {
  /** requested by the caller, in the tenant */
  byActor: number;
  /** on the request's task */
  byTask: number;
}

type Deferral = Extract<Outcome, { kind: 'deferred' }>;

/** The outcome opens a new approval: only then are the counts read and the bound applied. */
export function opensApproval(o: Outcome): o is Deferral {
  return o.kind === 'deferred' && o.openApproval;
}

/**
 * Step 11's bound: opening one more approval past either limit is refused instead. Like
 * every refusal it reserves and claims nothing, so the same step can be sent again once an
 * approver has decided (or an approval has expired). Earlier checks already ran: a request
 * that fails one of them keeps that refusal.
 */
export function boundOpenApprovals(
  o: Deferral,
  req: DecisionRequest,
  actorId: string,
  counts: OpenApprovalCounts,
  limits: OpenApprovalLimits,
): Outcome {
  const over =
    counts.byActor >= limits.perActor
      ? `${actorId} already has ${counts.byActor} open approvals in this tenant (at most ${limits.perActor} per requester)`
      : counts.byTask >= limits.perTask
        ? `task ${req.taskId} already has ${counts.byTask} open approvals (at most ${limits.perTask} per task)`
        : undefined;
  if (over === undefined) return o;
  return {
    kind: 'refused',
    code: 'open_approvals_limit',
    reason: `${over}: no further approval is opened until one is decided or expires`,
    remedy: `ask an approver to decide the open approvals (\`svc approvals list --status pending\`), then send the same request again with the same effect_key_step`,
    tier: o.tier,
    amountMicros: o.amountMicros,
  };
}

/**
 * The limits a deployment configured, checked: each a whole number of approvals, at least
 * one (zero would refuse every approval, which is what a policy forbid is for).
 */
export function openApprovalLimits(perActor: number, perTask: number): OpenApprovalLimits {
  const check = (field: string, n: number) => {
    if (!Number.isSafeInteger(n) || n < 1 || n > MAX_LIMIT) {
      throw new SvcError(
        'usage',
        `${field}: expected a whole number from 1 to ${MAX_LIMIT}, got ${String(n)}`,
        {
          field,
        },
      );
    }
  };
  check('max-open-approvals-per-actor', perActor);
  check('max-open-approvals-per-task', perTask);
  return { perActor, perTask };
}

const MAX_LIMIT = 100_000;
