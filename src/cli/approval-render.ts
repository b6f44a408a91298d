import { amountLabel, approvalBinding } from '../core/approval-binding.js';
import type { ApprovalWire } from '../api/approval-view.js';
import type { Column } from './list-output.js';
import { renderTable } from './table.js';

/** `svc approvals show`: what the approval binds first, then where it stands. */
export function renderApproval(a: ApprovalWire): string {
  const rows: string[][] = [
    ['approval', a.approval_id],
    ['status', a.status],
    ...approvalBinding(a).map((f) => [f.label, f.value]),
    ['expires', a.expires_at],
  ];
  if (a.decided_by !== null)
    rows.push(['decided by', `${a.decided_by} at ${a.decided_at ?? '?'} (${a.channel ?? '?'})`]);
  if (a.note !== null) rows.push(['note', a.note]);
  return renderTable(['field', 'value'], rows);
}

/** `svc approvals list`: the amount says whose figure it is; params in full, last (never padded). */
export const APPROVAL_COLUMNS: Column<ApprovalWire>[] = [
  { header: 'approval', cell: (a) => a.approval_id },
  { header: 'status', cell: (a) => a.status },
  { header: 'capability', cell: (a) => a.capability },
  { header: 'action', cell: (a) => a.action },
  { header: 'requester', cell: (a) => a.requester_id },
  {
    header: 'amount (USD)',
    cell: (a) => `${a.amount_usd} ${amountLabel(a.amount_source).replace(/^amount /, '')}`,
  },
  { header: 'task', cell: (a) => a.task_id },
  { header: 'expires', cell: (a) => a.expires_at },
  { header: 'params', cell: (a) => (a.params === null ? '' : JSON.stringify(a.params)) },
];
