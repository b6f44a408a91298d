import type { SvcError } from '../core/errors.js';
import { errorFromAnswer, type Exchange } from './transport.js';
import type { ActionRequest, BrokeredDecision, Decision } from './wire.js';

/** What an agent sends for a decision; the SDK fills the identity claims from its token. */
export type DecisionInput = Omit<ActionRequest, 'tenant_id' | 'actor_id'>;

/** Which pair of routes a decision was made on, so its resume goes to the matching one. */
export type DecisionRoute = 'action' | 'brokered' | 'federate';

interface Base {
  route: DecisionRoute;
  /** the request as sent; a resume or retry sends exactly this again */
  request: ActionRequest;
}

export interface Allowed<D> extends Base {
  kind: 'allowed';
  decision: D;
}

/** 202: nothing is authorized yet; resume with the same request after the condition changes. */
export interface Deferred<D> extends Base {
  kind: 'deferred';
  decision: D;
  approval_id: string | null;
  reason: string | null;
}

/** 403: refused, with the sealed receipt when the decision was sealed. */
export interface Refused<D> extends Base {
  kind: 'refused';
  code: string;
  reason: string;
  remedy: string | null;
  /** the decision-shaped body when the refusal was sealed; null for one before any decision ran */
  decision: D | null;
}

/** 409: the effect key is claimed or deferred, or a resume body differs. Never bypass it with a new key. */
export interface Conflict extends Base {
  kind: 'conflict';
  code: string;
  reason: string;
  remedy: string | null;
  /** the original intent and its outcome; a claim is not proof of downstream success */
  intent_id: string | null;
  prior_outcome: string | null;
}

/** 503 from the daemon: read `executed` and reconcile before repeating with the same request. */
export interface DaemonFailure extends Base {
  kind: 'failure';
  status: number;
  code: string;
  reason: string;
  remedy: string | null;
  intent_id: string | null;
  /** brokered: whether the provider may have been called (true means the effect may have happened) */
  executed: boolean | null;
  request_id: string | null;
}

/** Timeout, reset, an intermediary's error, no answer: reconcile by task and step before retrying. */
export interface OutcomeUnknown extends Base {
  kind: 'unknown';
  reason: string;
  task_id: string;
  effect_key_step: string;
}

export type Outcome<D> = Allowed<D> | Deferred<D> | Refused<D> | Conflict | DaemonFailure | OutcomeUnknown;
export type DecisionOutcome = Outcome<Decision>;
export type BrokeredOutcome = Outcome<BrokeredDecision>;

const str = (v: unknown): string | null => (typeof v === 'string' ? v : null);

/**
 * An answer of a decision route as a typed outcome. Caller mistakes (400, 401, a resume
 * with no standing deferral) throw; anything the SDK cannot read as the daemon's own
 * answer is an unknown outcome, never a guess.
 */
export function decisionOutcome<D>(route: DecisionRoute, request: ActionRequest, ex: Exchange): Outcome<D> {
  const base = { route, request };
  if (ex.kind === 'not_sent') throw ex.error;
  if (ex.kind === 'lost') return unknown(base, ex.reason);
  const { status, body } = ex;
  const b = (ex.json && body !== null && typeof body === 'object' ? body : null) as Record<
    string,
    unknown
  > | null;
  if (b === null)
    return unknown(base, `HTTP ${status} without the daemon's JSON body (an intermediary answered?)`);
  const decisionShaped = typeof b.decision === 'string' && typeof b.intent_id === 'string';
  if (status === 200 && b.decision === 'allowed') return { ...base, kind: 'allowed', decision: b as D };
  if (status === 202 && b.decision === 'deferred') {
    const approval = b.approval as { approval_id?: unknown } | null;
    return {
      ...base,
      kind: 'deferred',
      decision: b as D,
      approval_id: str(approval?.approval_id),
      reason: str(b.reason),
    };
  }
  if (status === 403 && typeof b.reason === 'string') {
    return {
      ...base,
      kind: 'refused',
      code: str(b.code) ?? 'refused',
      reason: b.reason,
      remedy: str(b.remedy),
      decision: decisionShaped ? (b as D) : null,
    };
  }
  if (status === 409 && typeof b.code === 'string') {
    return {
      ...base,
      kind: 'conflict',
      code: b.code,
      reason: str(b.reason) ?? '',
      remedy: str(b.remedy),
      intent_id: str(b.intent_id),
      prior_outcome: str(b.outcome),
    };
  }
  if (status >= 500 && typeof b.code === 'string') {
    return {
      ...base,
      kind: 'failure',
      status,
      code: b.code,
      reason: str(b.reason) ?? '',
      remedy: str(b.remedy),
      intent_id: str(b.intent_id),
      executed: typeof b.executed === 'boolean' ? b.executed : null,
      request_id: str(b.request_id),
    };
  }
  if (status >= 400 && status < 500) throw errorFromAnswer(status, b) satisfies SvcError;
  return unknown(base, `HTTP ${status} is not an answer a decision route gives`);
}

function unknown(base: Base, reason: string): OutcomeUnknown {
  return {
    ...base,
    kind: 'unknown',
    reason: `outcome unknown: ${reason}; reconcile by task_id and effect_key_step before any retry`,
    task_id: base.request.task_id,
    effect_key_step: base.request.effect_key_step,
  };
}
