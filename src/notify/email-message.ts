import type { NotifyEvent } from '../core/notify/event.js';

/** What an email says: a one-line subject and a plain-text body. */
export interface EmailMessage {
  subject: string;
  text: string;
}

const SUBJECT_MAX = 200;
const VALUE_MAX = 500;

/**
 * One line, bounded: control characters (CR, LF, tabs, escapes) become spaces, so no value
 * can start a header or a new line that passes for the email's own text (an agent writes
 * the intent), and a long one is cut.
 */
export function oneLine(value: unknown, max = VALUE_MAX): string {
  const s = (typeof value === 'string' ? value : (JSON.stringify(value) ?? ''))
    // eslint-disable-next-line no-control-regex
    .replace(/[\u0000-\u001f\u007f-\u009f\u2028\u2029]+/g, ' ')
    .replace(/\s+/g, ' ')
    .trim();
  return s.length > max ? `${s.slice(0, max - 1)}…` : s;
}

/** The console's page of one approval: it asks to sign in, and never approves from a link. */
export function approvalLink(consoleUrl: string, approvalId: string): string {
  return `${consoleUrl.replace(/\/+$/, '')}/#/approvals/${encodeURIComponent(approvalId)}`;
}

const APPROVAL_TYPES = new Set([
  'approval.requested',
  'approval.reminder',
  'approval.decided',
  'approval.expired',
]);

function approvalHeadline(e: NotifyEvent): { subject: string; lead: string } {
  const d = e.data;
  const what = `${oneLine(d.capability, 80)} ${oneLine(d.action, 40)}, ${oneLine(d.amount_usd, 30)} ${oneLine(d.currency, 8)}`;
  if (e.type === 'approval.requested') {
    return {
      subject: `Approval needed: ${what}`,
      lead: 'An agent asks for an action that waits for a human approval.',
    };
  }
  if (e.type === 'approval.reminder') {
    const waited = Math.floor(Number(d.pending_seconds) / 60);
    return d.escalated === true
      ? {
          subject: `Escalated, still pending: ${what}`,
          lead: `Escalated to you: this approval has waited ${waited} minutes and is still pending.`,
        }
      : {
          subject: `Reminder, still pending: ${what}`,
          lead: `Reminder: this approval has waited ${waited} minutes and is still pending.`,
        };
  }
  if (e.type === 'approval.expired') {
    return { subject: `Expired: ${what}`, lead: 'This approval expired undecided; the action does not run.' };
  }
  const status = oneLine(d.status, 20);
  return {
    subject: `${status === 'approved' ? 'Approved' : 'Denied'}: ${what}`,
    lead: `This approval was ${status} by ${oneLine(d.decided_by, 80)} (${oneLine(d.channel, 20)}) at ${oneLine(d.decided_at, 40)}.`,
  };
}

function rows(pairs: [string, unknown][]): string {
  const width = Math.max(...pairs.map(([k]) => k.length)) + 2;
  return pairs
    .filter(([, v]) => v !== undefined)
    .map(([k, v]) => `${`${k}:`.padEnd(width)}${v === null ? '(none)' : oneLine(v)}`)
    .join('\n');
}

function approvalMessage(e: NotifyEvent, consoleUrl: string): EmailMessage {
  const d = e.data;
  const { subject, lead } = approvalHeadline(e);
  const id = oneLine(d.approval_id, 100);
  const text = [
    lead,
    '',
    'What would run:',
    rows([
      ['Capability', d.capability],
      ['Action', d.action],
      ['Amount', `${oneLine(d.amount_usd, 30)} ${oneLine(d.currency, 8)}`],
      ['Task', d.task_id],
      ['Intent', d.intent],
      ['Requested by', d.requester_id],
      ['Request digest', d.request_digest],
      ['Requested at', d.created_at],
      ['Expires at', d.expires_at],
      ['Approval', id],
      ['Tenant', d.tenant_id],
    ]),
    '',
    // The intent is the agent's own words: the facts above are what the decision checks.
    'The intent is written by the agent; judge the request by the capability, amount and task.',
    '',
    'Open the approval in the console (you sign in first; nothing is approved from this link):',
    approvalLink(consoleUrl, String(d.approval_id)),
    '',
    `Or from a shell: svc approvals show ${id}`,
    '',
    `Event ${e.id} (${e.type}) at ${e.timestamp}.`,
  ].join('\n');
  return { subject: oneLine(`[svc] ${subject}`, SUBJECT_MAX), text };
}

function genericMessage(e: NotifyEvent): EmailMessage {
  const test = e.data.test === true;
  const lead = test
    ? 'A test of this destination (svc notify test): it names no record; ignore it.'
    : `An event of tenant ${oneLine(e.data.tenant_id, 100)}.`;
  const fields = Object.entries(e.data).filter(([k]) => k !== 'tenant_id');
  const text = [
    lead,
    '',
    rows([['Event', e.type], ['Tenant', e.data.tenant_id], ...fields]),
    '',
    `Event ${e.id} at ${e.timestamp}.`,
  ].join('\n');
  const subject = test ? `[svc] Test of this destination (${e.type})` : `[svc] ${e.type}`;
  return { subject: oneLine(subject, SUBJECT_MAX), text };
}

/**
 * The email of an event: an approval's says what exactly would run and links to its page in
 * the console; any other event (and a test) is listed field by field. Never a token or a
 * secret: only the event's data, which never holds one.
 */
export function emailMessage(e: NotifyEvent, consoleUrl: string): EmailMessage {
  if (APPROVAL_TYPES.has(e.type) && e.data.test !== true && typeof e.data.approval_id === 'string') {
    return approvalMessage(e, consoleUrl);
  }
  return genericMessage(e);
}
