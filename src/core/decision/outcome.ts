import type { Micros } from '../money.js';

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
    }
  | {
      kind: 'allowed';
      tier: number;
      amountMicros: Micros;
      consumeApprovalId?: string;
      determining: string[];
    };

export type SealedKind = Extract<Outcome, { kind: 'refused' | 'deferred' | 'allowed' }>['kind'];
