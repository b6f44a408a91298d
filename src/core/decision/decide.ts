import { effectiveStatus } from '../approval.js';
import { fits, microsToDecimal, remaining, shortfall, type Micros } from '../money.js';
import type { NoDeferral, Outcome, PolicyQuestion, PolicyStep, RefusalCode } from './outcome.js';
import type { DecisionRequest } from './request.js';
import type { DecisionState } from './state.js';

/** What the pure pipeline asks of policy and of execution constraints; both injected. */
export interface DecisionRules {
  policy: (q: PolicyQuestion) => {
    allow: boolean;
    noPolicy: boolean;
    reason?: string;
    remedy?: string;
    determining: string[];
  };
  constraints: (
    plan: unknown,
    usage: { count: number; totalMicros: Micros },
    q: { capability: string; actorId: string; amountMicros: Micros; now: Date },
  ) => { ok: true } | { ok: false; reason: string; remedy?: string };
}

export const APPROVAL_TTL_MS = 24 * 3_600_000;

/**
 * Why a resume has nothing to resume (404, nothing recorded). The intent holding the key is
 * named only to the actor who made it: another caller learns no more than a bare 404.
 */
function noDeferral(req: DecisionRequest, s: DecisionState): NoDeferral {
  const key = s.effectKey;
  const step = `${req.taskId}/${req.step}`;
  const receipts = `svc receipts list --task ${req.taskId}`;
  if (!key || key.actorId !== s.caller.id) {
    return {
      kind: 'no_deferral',
      reason: 'no standing deferral matches this effect key on this route',
      // task_id passed the body's slug check: the remedy can name the exact command.
      remedy: `check task_id and effect_key_step; \`${receipts}\` shows what was decided on the task`,
    };
  }
  const named = { intentId: key.intentId, prior: key.outcome };
  if (key.state === 'claimed') {
    return {
      kind: 'no_deferral',
      reason: `effect key ${step} was already ${key.outcome} as intent ${key.intentId}: there is no deferral left to resume`,
      remedy:
        (key.route === 'action'
          ? 'use the grant the allowing response returned; '
          : 'the allowing response carried the provider outcome; ') +
        `\`${receipts}\` shows intent ${key.intentId}; do not use a new effect key to repeat it`,
      ...named,
    };
  }
  return {
    kind: 'no_deferral',
    reason: `effect key ${step} is deferred on /v1/${key.route}, not on /v1/${req.route} (intent ${key.intentId})`,
    remedy: `resume it with POST /v1/${key.route}/resume and the same body`,
    ...named,
  };
}

const usd = (m: Micros) => `${microsToDecimal(m)} USD`;

/**
 * The decision, in the order of semantics.md. Pure: everything it reads is in `state`,
 * everything it concludes is in the returned outcome; the store records the outcome and
 * its journal record in the transaction that loaded the state.
 */
export function decide(
  req: DecisionRequest,
  s: DecisionState,
  rules: DecisionRules,
  mode: 'new' | 'resume',
): Outcome {
  // Resume: the deferral must stand, for this route, with the identical body.
  if (mode === 'resume') {
    const key = s.effectKey;
    if (!key || key.state !== 'deferred' || key.route !== req.route) return noDeferral(req, s);
    if (key.requestDigest !== req.digest) {
      return {
        kind: 'conflict',
        code: 'request_mismatch',
        reason: 'the body differs from the deferred request; a resume must repeat it exactly',
        remedy: 'resend the deferred body unchanged (correlation_id and trace_id may differ)',
        intentId: key.intentId,
        prior: key.outcome,
      };
    }
  }

  const tier = s.capability?.tier ?? 0;
  const requested = req.amountMicros ?? s.capability?.costMicros ?? 0n;
  const refuse = (code: RefusalCode, reason: string, remedy?: string, determining?: string[]): Outcome => ({
    kind: 'refused',
    code,
    reason,
    ...(remedy !== undefined ? { remedy } : {}),
    tier,
    amountMicros: requested,
    ...(determining ? { determining } : {}),
  });

  // 3. capability registered, and the verb one it allows
  const cap = s.capability;
  if (!cap) {
    return refuse(
      'unknown_capability',
      `capability ${req.capability} is not registered in this tenant`,
      `GET /v1/capabilities lists what you may use; an operator registers it with \`svc capability register --tenant ${req.tenantId} --name ${req.capability}\``,
    );
  }
  if (!cap.actions.includes(req.action)) {
    return refuse(
      'action_not_allowed',
      `capability ${cap.name} does not allow the action ${req.action}`,
      `use one of: ${cap.actions.join(', ')}`,
    );
  }
  if (cap.custody === 'brokered' && req.route !== 'brokered') {
    return refuse(
      'wrong_route',
      `capability ${cap.name} is brokered: the daemon executes it`,
      'send the request to POST /v1/brokered',
    );
  }
  if (cap.custody !== 'brokered' && req.route === 'brokered') {
    return refuse(
      'wrong_route',
      `capability ${cap.name} is not brokered`,
      'send the request to POST /v1/action',
    );
  }

  // 4. task exists, is active, and the caller works on it
  const task = s.task;
  if (!task)
    return refuse(
      'unknown_task',
      `task ${req.taskId} does not exist in this tenant`,
      `ask the task sponsor for a valid task id (\`svc task list --tenant ${req.tenantId}\` lists them)`,
    );
  if (task.status !== 'active') {
    return refuse(
      'task_not_active',
      `task ${task.id} is ${task.status}`,
      task.status === 'draft'
        ? `the sponsor activates it by installing its execution constraints: \`svc constraints install ${task.rootId} --plan plan.json\``
        : 'closed tasks take no new actions; use an active task',
    );
  }
  if (task.actors.length > 0 && !task.actors.includes(s.caller.id) && task.sponsorId !== s.caller.id) {
    return refuse(
      'task_not_assigned',
      `${s.caller.id} is not assigned to task ${task.id}`,
      `ask the sponsor (${task.sponsorId}) to assign it`,
    );
  }

  // 5. effect key free (a resume holds its own deferral)
  if (mode === 'new' && s.effectKey) {
    const k = s.effectKey;
    return k.state === 'claimed'
      ? {
          kind: 'conflict',
          code: 'duplicate_effect',
          reason: `effect key ${req.taskId}/${req.step} is already claimed by intent ${k.intentId} (${k.outcome}); a claim is not proof the effect happened`,
          remedy: `inspect the original intent with \`svc receipts list --task ${req.taskId}\`; do not use a new effect key to get past this`,
          intentId: k.intentId,
          prior: k.outcome,
        }
      : {
          kind: 'conflict',
          code: 'deferral_pending',
          reason: `effect key ${req.taskId}/${req.step} has a standing deferral (intent ${k.intentId})`,
          remedy: `after its condition changes, POST /v1/${k.route === 'brokered' ? 'brokered' : 'action'}/resume with the same body`,
          intentId: k.intentId,
          prior: k.outcome,
        };
  }

  // 6. a standing permission or an unexpired entitlement
  if (!s.holds) {
    return refuse(
      'not_permitted',
      `${s.caller.id} holds no permission or entitlement for ${cap.name}`,
      cap.requestable
        ? `request access: \`svc access request ${cap.name} --reason <why> --duration <8h>\``
        : `ask an administrator to grant it: \`svc permission grant --tenant ${req.tenantId} --actor ${s.caller.id} --capability ${cap.name}\``,
    );
  }

  // 7. brokered: the surface takes operations
  if (req.route === 'brokered' && s.surfaceProblem !== undefined) {
    return refuse(
      'surface_unavailable',
      s.surfaceProblem,
      'ask an administrator about the integration surface (`svc integration-ops surfaces` shows its state)',
    );
  }

  // 8. the root's execution constraints admit the action
  if (s.constraints) {
    const c = s.constraints;
    const verdict = rules.constraints(
      c.plan,
      { count: c.admittedCount, totalMicros: c.admittedMicros },
      { capability: cap.name, actorId: s.caller.id, amountMicros: requested, now: s.now },
    );
    if (!verdict.ok) return refuse('constraints_violation', verdict.reason, verdict.remedy);
  }

  // 9. policy
  const question: PolicyQuestion = {
    actor: { id: s.caller.id, kind: s.caller.kind, roles: s.caller.roles, manager: s.caller.managerId },
    capability: { id: cap.name, tier: cap.tier, irreversible: cap.irreversible, custody: cap.custody },
    action: req.action,
    taskId: task.id,
    amountMicros: requested,
    route: req.route,
    nowEpochS: Math.floor(s.now.getTime() / 1000),
  };
  const p = rules.policy(question);
  // Every outcome from here on carries the step, assigned rather than spread (the hot path).
  const policyStep: PolicyStep = {
    question,
    allow: p.allow,
    noPolicy: p.noPolicy,
    determining: p.determining,
    approvalTier: s.approvalTier,
  };
  const outcome = afterPolicy(req, s, mode, p, { cap, task, requested, tier }, refuse);
  if (outcome.kind !== 'no_deferral' && outcome.kind !== 'conflict') outcome.policyStep = policyStep;
  return outcome;
}

/** Steps 9 (the answer) to 12: what follows from the policy's answer. */
function afterPolicy(
  req: DecisionRequest,
  s: DecisionState,
  mode: 'new' | 'resume',
  p: ReturnType<DecisionRules['policy']>,
  known: {
    cap: NonNullable<DecisionState['capability']>;
    task: NonNullable<DecisionState['task']>;
    requested: Micros;
    tier: number;
  },
  refuse: (code: RefusalCode, reason: string, remedy?: string, determining?: string[]) => Outcome,
): Outcome {
  const { cap, task, requested, tier } = known;
  if (!p.allow) {
    return refuse(
      p.noPolicy ? 'no_policy' : 'policy_denied',
      p.reason ?? 'the policy does not permit this request',
      p.remedy,
      p.determining,
    );
  }

  // 10. budget
  const budget = { limit: task.budgetMicros, reserved: task.reservedMicros };
  if (!fits(budget, requested)) {
    const raise = shortfall(budget, requested);
    return refuse(
      'budget_exceeded',
      `task ${task.id} has ${usd(remaining(budget))} left; this action needs ${usd(requested)}`,
      `raise the budget of task ${task.id} by ${usd(raise)}: svc task budget --tenant ${req.tenantId} --id ${task.id} --set ${microsToDecimal(task.budgetMicros + raise)}`,
    );
  }

  // 11. approval for irreversible or high-tier capabilities
  let consumeApprovalId: string | undefined;
  if (cap.irreversible || cap.tier >= s.approvalTier) {
    const why = cap.irreversible
      ? `${cap.name} is irreversible`
      : `${cap.name} is tier ${cap.tier}, at or above the approval tier ${s.approvalTier}`;
    const waitRemedy = `after an approver decides, POST /v1/${req.route}/resume with the same body`;
    const a = mode === 'resume' ? s.approval : undefined;
    if (!a) {
      return {
        kind: 'deferred',
        reason: `${why}: an authorized person must approve it`,
        remedy: waitRemedy,
        tier,
        amountMicros: requested,
        openApproval: true,
      };
    }
    const status = effectiveStatus(a, s.now);
    if (status === 'denied') return refuse('approval_denied', `approval ${a.id} was denied`);
    if (status === 'expired') {
      return refuse(
        'approval_expired',
        `approval ${a.id} expired at ${a.expiresAt}`,
        'send the request again with a new effect_key_step to ask anew',
      );
    }
    if (status === 'consumed' || a.requestDigest !== req.digest || a.amountMicros !== requested) {
      return refuse(
        'approval_mismatch',
        `approval ${a.id} does not bind this request (${status === 'consumed' ? 'already used' : 'different body or amount'})`,
      );
    }
    if (status === 'pending') {
      return {
        kind: 'deferred',
        reason: `${why}: approval ${a.id} is still pending`,
        remedy: waitRemedy,
        tier,
        amountMicros: requested,
        openApproval: false,
        approvalId: a.id,
        standing: true,
      };
    }
    consumeApprovalId = a.id;
  }

  // 12. allowed (the optional field assigned, not spread: this is every allowed decision's path)
  const allowed: Extract<Outcome, { kind: 'allowed' }> = {
    kind: 'allowed',
    tier,
    amountMicros: requested,
    determining: p.determining,
  };
  if (consumeApprovalId) allowed.consumeApprovalId = consumeApprovalId;
  return allowed;
}
