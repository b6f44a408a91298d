import type { ConflictCode, RefusalCode } from '../../src/core/decision/outcome.js';

/**
 * When two refusals apply, the earlier step of the decision decides (semantics.md, "The
 * decision, in order": the first check that fails decides the refusal; a resume with another
 * body is a conflict before any check runs again). Each case names the code that must win
 * and the one it wins over; both the database-free table (test/unit/core/refusal-table.test.ts)
 * and the store contract (test/contract/cases/refusal-order.ts) build every case twice:
 * as described, expecting `wins`, and with the winning cause removed, expecting `over`, so a
 * case whose second refusal never applied fails instead of passing for nothing.
 */
export const ORDER_CASES = [
  {
    id: 'capability-before-task',
    wins: 'unknown_capability',
    over: 'unknown_task',
    when: 'an unregistered capability on a task that does not exist',
  },
  {
    id: 'verb-before-route',
    wins: 'action_not_allowed',
    over: 'wrong_route',
    when: 'a verb the brokered capability does not allow, sent to /v1/action',
  },
  {
    id: 'route-before-task',
    wins: 'wrong_route',
    over: 'unknown_task',
    when: 'a brokered capability sent to /v1/action on a task that does not exist',
  },
  {
    id: 'inactive-before-unassigned',
    wins: 'task_not_active',
    over: 'task_not_assigned',
    when: 'a draft task the caller is not assigned to',
  },
  {
    id: 'unassigned-before-claimed-key',
    wins: 'task_not_assigned',
    over: 'duplicate_effect',
    when: 'an effect key another agent claimed, on a task the caller is not assigned to',
  },
  {
    id: 'claimed-key-before-permission',
    wins: 'duplicate_effect',
    over: 'not_permitted',
    when: 'the caller claimed the key, then lost its permission',
  },
  {
    id: 'permission-before-surface',
    wins: 'not_permitted',
    over: 'surface_unavailable',
    when: 'a brokered capability the caller does not hold, with no surface to execute it',
  },
  {
    id: 'surface-before-constraints',
    wins: 'surface_unavailable',
    over: 'constraints_violation',
    when: 'no surface to execute, and a root plan that does not admit the capability',
  },
  {
    id: 'constraints-before-policy',
    wins: 'constraints_violation',
    over: 'no_policy',
    when: "an amount above the root plan's bound per action, in a tenant with no policy",
  },
  {
    id: 'no-policy-before-budget',
    wins: 'no_policy',
    over: 'budget_exceeded',
    when: 'no policy, and an amount above what the task has left',
  },
  {
    id: 'policy-before-budget',
    wins: 'policy_denied',
    over: 'budget_exceeded',
    when: 'a forbidding policy, and an amount above what the task has left',
  },
  {
    id: 'budget-before-open-approvals',
    wins: 'budget_exceeded',
    over: 'open_approvals_limit',
    when: 'an irreversible action over budget, with the open approvals at their bound',
  },
  {
    id: 'budget-before-denied-approval',
    wins: 'budget_exceeded',
    over: 'approval_denied',
    when: 'a resume whose approval was denied, after the budget was lowered below its amount',
  },
  {
    id: 'denied-before-expired',
    wins: 'approval_denied',
    over: 'approval_expired',
    when: 'a resume after its denied approval would have expired',
  },
  {
    id: 'expired-before-mismatch',
    wins: 'approval_expired',
    over: 'approval_mismatch',
    when: "a resume after its approval expired, and the capability's default amount changed",
  },
  {
    id: 'request-mismatch-before-checks',
    wins: 'request_mismatch',
    over: 'action_not_allowed',
    when: 'a resume with another body, after the capability stopped allowing the verb',
  },
] as const satisfies readonly {
  id: string;
  wins: RefusalCode | ConflictCode;
  over: RefusalCode | ConflictCode;
  when: string;
}[];

export type OrderCaseId = (typeof ORDER_CASES)[number]['id'];
