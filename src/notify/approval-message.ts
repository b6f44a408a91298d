import type { NotifyEvent } from '../core/notify/event.js';

/**
 * What a chat or collab message about an event says, before either platform's shape is put
 * on it: the facts of an approval (what exactly would run, who asks, until when), the
 * outcome of a decided or expired one, or a short line naming any other event. Every value
 * that an agent or a person typed (the intent above all) is kept as plain text by the
 * platform renderers: it is never parsed as markup, so it cannot mention a channel, hide a
 * link or dress itself up as the outcome.
 */

/** Long free text is cut: the request digest names the exact request. */
const MAX_VALUE = 1000;

export type ApprovalPhase = 'requested' | 'reminder' | 'decided' | 'expired';

export interface ApprovalView {
  phase: ApprovalPhase;
  approvalId: string;
  /** one line saying what happened or is asked */
  headline: string;
  /** label and plain value, in the order shown */
  facts: [string, string][];
  /** whether the message carries Approve / Deny */
  buttons: boolean;
}

const PHASES: Record<string, ApprovalPhase> = {
  'approval.requested': 'requested',
  'approval.reminder': 'reminder',
  'approval.decided': 'decided',
  'approval.expired': 'expired',
};

function str(v: unknown): string | null {
  if (typeof v === 'string') return v.length > MAX_VALUE ? `${v.slice(0, MAX_VALUE)}…` : v;
  if (typeof v === 'number' || typeof v === 'boolean') return String(v);
  return null;
}

/** `3 h 5 min`, `12 min`, `40 s`: how long an approval has waited. */
export function waited(seconds: number): string {
  const h = Math.floor(seconds / 3600);
  const m = Math.floor((seconds % 3600) / 60);
  if (h > 0) return m > 0 ? `${h} h ${m} min` : `${h} h`;
  if (m > 0) return `${m} min`;
  return `${Math.max(0, Math.floor(seconds))} s`;
}

/** Whether the event is the synthetic one of `svc notify test`. */
export function isTestEvent(e: NotifyEvent): boolean {
  return e.data.test === true;
}

export function testText(e: NotifyEvent): string {
  return `svc test notification (tenant ${e.tenantId}, destination ${str(e.data.destination_id) ?? '?'})`;
}

/** The approval an approval event is about, or undefined for any other event. */
export function approvalIdOf(e: NotifyEvent): string | undefined {
  if (!(e.type in PHASES) || isTestEvent(e)) return undefined;
  const id = e.data.approval_id;
  return typeof id === 'string' && id.length > 0 ? id : undefined;
}

/** An approval event as a message: undefined for another event (or the test event). */
export function approvalView(e: NotifyEvent): ApprovalView | undefined {
  const approvalId = approvalIdOf(e);
  if (approvalId === undefined) return undefined;
  const phase = PHASES[e.type]!;
  const d = e.data;
  const what = `${str(d.capability) ?? '?'} ${str(d.action) ?? '?'}`;
  const amount = `${str(d.amount_usd) ?? '?'} ${str(d.currency) ?? 'USD'}`;
  let headline: string;
  if (phase === 'requested') headline = `Approval needed: ${what} for ${amount}`;
  else if (phase === 'reminder') {
    const pending = typeof d.pending_seconds === 'number' ? waited(d.pending_seconds) : '?';
    headline = `Reminder${d.escalated === true ? ' (escalated)' : ''}: approval still needed after ${pending}: ${what} for ${amount}`;
  } else if (phase === 'decided') {
    const verdict = d.status === 'approved' ? 'Approved' : 'Denied';
    headline = `${verdict} by ${str(d.decided_by) ?? '?'}: ${what} for ${amount}`;
  } else headline = `Expired undecided: ${what} for ${amount}`;
  const facts: [string, string][] = [
    ['Capability', str(d.capability) ?? '?'],
    ['Action', str(d.action) ?? '?'],
    ['Amount', amount],
    ['Task', str(d.task_id) ?? '?'],
    ['Intent', str(d.intent) ?? '(none given)'],
    ['Requester', str(d.requester_id) ?? '?'],
    ['Request digest', str(d.request_digest) ?? '?'],
    ['Expires', str(d.expires_at) ?? '?'],
  ];
  if (phase === 'decided') {
    facts.push(
      ['Decided', `${str(d.status) ?? '?'} by ${str(d.decided_by) ?? '?'} at ${str(d.decided_at) ?? '?'}`],
      ['Channel', str(d.channel) ?? '?'],
      ['Receipt', str(d.receipt_id) ?? '?'],
    );
  }
  facts.push(['Approval', approvalId]);
  return { phase, approvalId, headline, facts, buttons: phase === 'requested' || phase === 'reminder' };
}

/** Another event as one line: its type and its scalar fields (never more than the event holds). */
export function eventText(e: NotifyEvent): string {
  if (isTestEvent(e)) return testText(e);
  const fields = Object.entries(e.data)
    .filter(([k]) => k !== 'tenant_id')
    .map(([k, v]) => [k, Array.isArray(v) ? v.map(str).join(', ') : str(v)] as const)
    .filter(([, v]) => v !== null)
    .slice(0, 12)
    .map(([k, v]) => `${k}: ${v}`);
  return `svc event ${e.type} (tenant ${e.tenantId})${fields.length > 0 ? `: ${fields.join('; ')}` : ''}`;
}
