import { Args, Flags } from '@oclif/core';
import chalk from 'chalk';
import type { z } from 'zod';
import { amountLabel } from '../core/approval-binding.js';
import type { ApprovalDecisionResult } from '../api/approval.js';
import { segment, type DaemonClient } from './daemon-client.js';

export type DecisionResult = z.output<typeof ApprovalDecisionResult>;

/** What `svc approvals approve` and `deny` both take. */
export const decisionArgs = { id: Args.string({ description: 'Approval id.', required: true }) };
export const decisionFlags = { note: Flags.string({ summary: 'Why; journaled with the decision.' }) };

export function decideApproval(
  client: DaemonClient,
  id: string,
  decision: 'approve' | 'deny',
  note: string | undefined,
): Promise<DecisionResult> {
  return client.post<DecisionResult>(`/v1/approvals/${segment(id)}/decision`, {
    decision,
    ...(note !== undefined ? { note } : {}),
  });
}

export function describeDecision(r: DecisionResult): string {
  const a = r.approval;
  const verdict = a.status === 'approved' ? chalk.green('approved') : chalk.red(a.status);
  const params = a.params === null ? '' : ` with params ${JSON.stringify(a.params)}`;
  return `${a.approval_id} ${verdict}: ${a.capability} ${a.action} for ${a.requester_id} on task ${a.task_id}, ${amountLabel(a.amount_source)} ${a.amount_usd} USD${params}`;
}
