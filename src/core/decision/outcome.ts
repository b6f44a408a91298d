import type { ActorKind } from '../actor.js';
import type { Micros } from '../money.js';

/** What the decision asks of the tenant's policy (step 9). */
export interface PolicyQuestion {
  actor: { id: string; kind: ActorKind; roles: readonly string[]; manager: string | null };
  capability: { id: string; tier: number; irreversible: boolean; custody: string };
  action: string;
  taskId: string;
  amountMicros: Micros;
  route: 'action' | 'brokered';
  nowEpochS: number;
}

/**
 * The policy step of a decision that reached it: the question, the answer, and the approval
 * tier in force, so the same question can be put to another policy (a shadow after the
 * commit, a replay from what was recorded) and read the way the pipeline read it.
 */
export interface PolicyStep {
  question: PolicyQuestion;
  allow: boolean;
  noPolicy: boolean;
  determining: string[];
  approvalTier: number;
}

/** Stable refusal codes, in the order of the checks that produce them (semantics.md). */
export const REFUSAL_CODES = [
  'unknown_capability',
  'action_not_allowed',
  'wrong_route',
  'unknown_task',
  'task_not_active',
  'task_not_assigned',
  'not_permitted',
  'surface_unavailable',
  'constraints_violation',
  'no_policy',
  'policy_denied',
  'budget_exceeded',
  'approval_denied',
  'approval_expired',
  'approval_mismatch',
  'open_approvals_limit',
] as const;
export type RefusalCode = (typeof REFUSAL_CODES)[number];

export const CONFLICT_CODES = ['duplicate_effect', 'deferral_pending', 'request_mismatch'] as const;
export type ConflictCode = (typeof CONFLICT_CODES)[number];

/**
 * A resume with no standing deferral to resume (404). When the key was already decided by
 * the caller's own request, the body names that intent and its outcome instead of leaving
 * the caller to guess.
 */
export interface NoDeferral {
  kind: 'no_deferral';
  reason: string;
  remedy: string;
  intentId?: string;
  prior?: string;
}

export type Outcome =
  | NoDeferral
  | { kind: 'conflict'; code: ConflictCode; reason: string; remedy: string; intentId: string; prior: string }
  | {
      kind: 'refused';
      code: RefusalCode;
      reason: string;
      remedy?: string;
      tier: number;
      amountMicros: Micros;
      determining?: string[];
      policyStep?: PolicyStep;
    }
  | {
      kind: 'deferred';
      reason: string;
      remedy: string;
      tier: number;
      amountMicros: Micros;
      openApproval: boolean;
      approvalId?: string;
      /**
       * A resume that finds the deferral exactly as it stood (its approval still pending):
       * nothing changed, so nothing is recorded and the standing deferral's receipt answers.
       * Polling then never grows the journal.
       */
      standing?: boolean;
      policyStep?: PolicyStep;
    }
  | {
      kind: 'allowed';
      tier: number;
      amountMicros: Micros;
      consumeApprovalId?: string;
      determining: string[];
      policyStep?: PolicyStep;
    };

export type SealedKind = Extract<Outcome, { kind: 'refused' | 'deferred' | 'allowed' }>['kind'];
