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
] as const;
export type RefusalCode = (typeof REFUSAL_CODES)[number];

export const CONFLICT_CODES = ['duplicate_effect', 'deferral_pending', 'request_mismatch'] as const;
export type ConflictCode = (typeof CONFLICT_CODES)[number];

export type Outcome =
  | { kind: 'no_deferral' }
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
    }
  | {
      kind: 'allowed';
      tier: number;
      amountMicros: Micros;
      consumeApprovalId?: string;
      determining: string[];
    };

export type SealedKind = Extract<Outcome, { kind: 'refused' | 'deferred' | 'allowed' }>['kind'];
