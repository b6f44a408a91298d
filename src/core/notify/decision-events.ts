import { newId } from '../ids.js';
import type { Micros } from '../money.js';
import type { DecisionRequest } from '../decision/request.js';
import type { DecisionWrites } from '../decision/writes.js';
import type { Task } from '../task.js';
import { asker, type UseCase } from '../use-case.js';
import type { EventType } from './event.js';
import { newEvent, subscribedTo, type OutboxOps, type Subscriber } from './outbox.js';
import { approvalData, budgetThresholdData } from './payloads.js';
import type { StagedRefusal } from './staged-refusal.js';
import type { SubscriberCache } from './subscriber-cache.js';

/** The outbox, the marks that let a task's budget threshold be announced once, and staged refusals. */
export interface DecisionEventOps extends OutboxOps {
  /** remember that `percent` of the task's budget was announced: false when it already was */
  markBudget(tenantId: string, taskId: string, percent: 80 | 100, eventId: string): boolean;
  /** one staged row per destination named; the loop fans them out (staged-refusal.ts) */
  stageRefusal(refusal: StagedRefusal, destinationIds: string[]): void;
}

const ask = asker<DecisionEventOps>();

/** The thresholds a reservation from `before` to `after` of `budget` crosses. */
export function crossedThresholds(budget: Micros, before: Micros, after: Micros): (80 | 100)[] {
  const crossed: (80 | 100)[] = [];
  if (before * 100n < budget * 80n && budget * 80n <= after * 100n) crossed.push(80);
  if (before < budget && budget <= after) crossed.push(100);
  return crossed;
}

/**
 * The events a sealed decision reports, in its transaction: `approval.requested` when it
 * opens an approval, `decision.refused` when it refuses (staged), `budget.threshold` when its
 * reservation crosses 80 % or 100 % of the task's budget. The tenant's destinations come
 * from `cache` when it holds this registry version: a decision nobody listens to asks the
 * store nothing.
 */
export function* decisionEvents(
  req: DecisionRequest,
  writes: DecisionWrites,
  task: Task | undefined,
  registryVersion: number,
  cache: SubscriberCache | undefined,
): UseCase<DecisionEventOps, void> {
  const types: EventType[] = [];
  if (writes.openApproval) types.push('approval.requested');
  if (writes.intent.outcome === 'refused') types.push('decision.refused');
  if (writes.reserve && task) types.push('budget.threshold');
  if (types.length === 0) return;
  let subscribers: Subscriber[] | undefined = cache?.get(req.tenantId, registryVersion);
  if (!subscribers) {
    subscribers = yield* ask('subscribers', req.tenantId);
    cache?.set(req.tenantId, registryVersion, subscribers);
  }
  for (const type of types) {
    const to = subscribedTo(subscribers, type);
    if (to.length === 0) continue;
    if (type === 'approval.requested') {
      const a = writes.openApproval!;
      const data = approvalData({ ...a, intent: req.intent });
      yield* ask('writeEvent', newEvent(req.tenantId, type, writes.at, data), to);
    } else if (type === 'decision.refused') {
      // Staged, not written: its payload is the intent this transaction writes (staged-refusal.ts).
      const refusal = {
        tenantId: req.tenantId,
        eventId: newId('evt'),
        timestamp: writes.at,
        intentId: writes.intent.id,
      };
      yield* ask('stageRefusal', refusal, to);
    } else {
      const { taskId, amountMicros } = writes.reserve!;
      const before = task!.reservedMicros;
      const after = before + amountMicros;
      for (const percent of crossedThresholds(task!.budgetMicros, before, after)) {
        const data = budgetThresholdData({
          taskId,
          percent,
          budgetMicros: task!.budgetMicros,
          reservedMicros: after,
          intentId: writes.intentId,
          at: writes.at,
        });
        const event = newEvent(req.tenantId, type, writes.at, data);
        if (yield* ask('markBudget', req.tenantId, taskId, percent, event.id))
          yield* ask('writeEvent', event, to);
      }
    }
  }
}
