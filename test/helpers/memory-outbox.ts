import type { NotifyEvent } from '../../src/core/notify/event.js';
import type { DecisionEventOps } from '../../src/core/notify/decision-events.js';
import type { Subscriber } from '../../src/core/notify/outbox.js';
import type { StagedRefusal } from '../../src/core/notify/staged-refusal.js';

/**
 * The outbox of the in-memory use-case tests: the destinations given, and the events written
 * kept in `events` (each with the destinations it went to), refusals staged in `staged`. With none given, nothing is
 * subscribed and nothing is written, as in a tenant without destinations.
 */
export function memoryOutbox(subscribers: Subscriber[] = []) {
  const events: { event: NotifyEvent; to: string[] }[] = [];
  const staged: { refusal: StagedRefusal; to: string[] }[] = [];
  const marks = new Set<string>();
  const ops: DecisionEventOps = {
    subscribers: () => subscribers,
    writeEvent: (event, to) => {
      events.push({ event, to });
    },
    stageRefusal: (refusal, to) => {
      staged.push({ refusal, to });
    },
    markBudget: (tenantId, taskId, percent) => {
      const key = `${tenantId}/${taskId}/${percent}`;
      if (marks.has(key)) return false;
      marks.add(key);
      return true;
    },
  };
  return { ops, events, staged };
}
