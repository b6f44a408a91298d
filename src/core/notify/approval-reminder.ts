import { checkGuarded } from '../guarded-write.js';
import { newId } from '../ids.js';
import { asker, type UseCase } from '../use-case.js';
import { takes, type OutboxOps } from './outbox.js';
import { approvalReminderData, type ApprovalEventFacts } from './payloads.js';

/** A pending approval and one destination of its tenant whose reminder delay has passed. */
export interface DueReminder extends ApprovalEventFacts {
  tenantId: string;
  destinationId: string;
  /** that destination's escalation destination, if it names one */
  escalateTo: string | null;
}

/** The store operations of the reminder sweep, in one transaction. */
export interface ApprovalReminderOps extends OutboxOps {
  /**
   * Up to `limit` (approval, destination) pairs, oldest approval first: the approval still
   * pending and unexpired at `now`, the destination enabled, added before the approval was
   * requested, with a reminder delay that has passed since the approval was created, subscribed to `approval.requested`, and not yet
   * reminded of it. On PostgreSQL the approvals are locked (`SKIP LOCKED`), so a second
   * replica's sweep skips them.
   */
  dueReminders(now: string, limit: number): DueReminder[];
  /**
   * The destinations already reminded of an approval, read after the approval was locked: a
   * replica that committed its reminders between our scan and our lock is seen here.
   */
  remindedOf(tenantId: string, approvalId: string): string[];
  /** the mark of one reminder; changes one row, or none when the pair was reminded already */
  markReminded(
    tenantId: string,
    approvalId: string,
    destinationId: string,
    eventId: string,
    now: string,
  ): number;
}

const ask = asker<ApprovalReminderOps>();

function byApproval(due: readonly DueReminder[]): DueReminder[][] {
  const groups = new Map<string, DueReminder[]>();
  for (const r of due) {
    const key = `${r.tenantId}\u0000${r.id}`;
    groups.set(key, [...(groups.get(key) ?? []), r]);
  }
  return [...groups.values()];
}

/**
 * `approval.reminder`, once per (approval, destination): each destination that reminds
 * (`remindAfterSeconds`) and would receive `approval.requested` gets one reminder of each
 * approval still pending that long after it was created, and its escalation destination
 * (`escalateTo`, if it exists and is enabled, whatever it subscribed to) gets the same event
 * with `escalated: true`. The marks and the events are written in one transaction, so a sweep
 * that rolls back sends nothing and a repeated one sends nothing twice. A destination that is
 * itself an escalation target of the same sweep gets only the escalated event. Returns how
 * many pairs were marked.
 */
export function* approvalReminder(now: Date, limit: number): UseCase<ApprovalReminderOps, number> {
  const at = now.toISOString();
  const due = yield* ask('dueReminders', at, limit);
  let marked = 0;
  for (const group of byApproval(due)) {
    const a = group[0]!;
    const subscribers = new Map((yield* ask('subscribers', a.tenantId)).map((s) => [s.id, s]));
    const already = new Set(yield* ask('remindedOf', a.tenantId, a.id));
    const reminding = group
      .map((r) => r.destinationId)
      .filter((id) => {
        const s = subscribers.get(id);
        return !already.has(id) && s !== undefined && takes(s, 'approval.requested');
      });
    if (reminding.length === 0) continue;
    const escalated = new Set<string>();
    for (const r of group) {
      const target = r.escalateTo;
      const id = r.destinationId;
      if (!reminding.includes(id)) continue;
      if (target !== null && target !== id && subscribers.get(target)?.enabled === true)
        escalated.add(target);
    }
    const direct = reminding.filter((id) => !escalated.has(id));
    const pendingSeconds = Math.max(0, Math.floor((now.getTime() - Date.parse(a.createdAt)) / 1000));
    const directId = newId('evt');
    const escalatedId = newId('evt');
    for (const id of reminding) {
      const eventId = escalated.has(id) ? escalatedId : directId;
      checkGuarded('the reminder mark', yield* ask('markReminded', a.tenantId, a.id, id, eventId, at));
      marked++;
    }
    const write = function* (id: string, to: string[], isEscalated: boolean) {
      if (to.length === 0) return;
      const data = approvalReminderData(a, { pendingSeconds, escalated: isEscalated });
      yield* ask(
        'writeEvent',
        {
          id,
          tenantId: a.tenantId,
          type: 'approval.reminder',
          timestamp: at,
          data: { ...data, tenant_id: a.tenantId },
        },
        to,
      );
    };
    yield* write(directId, direct, false);
    yield* write(escalatedId, [...escalated].sort(), true);
  }
  return marked;
}
