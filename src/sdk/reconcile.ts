import type { Receipt } from './wire.js';

export interface Reconciled {
  task_id: string;
  effect_key_step: string;
  /** whether a decision receipt for this key was found */
  found: boolean;
  /** the latest decision on the key (a resume seals a new one), or null */
  decision: Receipt | null;
  /** allowed, refused or deferred, from that decision */
  outcome: string | null;
  intent_id: string | null;
  /** brokered: the provider outcome journaled for the intent, when there is one */
  execution: Receipt | null;
  /** every receipt of this caller on the key, in journal order */
  receipts: Receipt[];
  /** what the result does and does not establish */
  note: string;
}

/** The spec's reconciliation: the task's receipts, matched on the published effect key step. */
export async function reconcileReceipts(
  pages: AsyncIterable<{ items: Receipt[] }>,
  actorId: string,
  taskId: string,
  step: string,
): Promise<Reconciled> {
  const mine: Receipt[] = [];
  for await (const page of pages) {
    for (const r of page.items) if (r.actor_id === actorId && r.effect_key_step === step) mine.push(r);
  }
  const decisions = mine.filter((r) => r.kind === 'decision');
  const decision = decisions.at(-1) ?? null;
  const execution =
    decision === null
      ? null
      : (mine.filter((r) => r.kind === 'execution' && r.intent_id === decision.intent_id).at(-1) ?? null);
  return {
    task_id: taskId,
    effect_key_step: step,
    found: decision !== null,
    decision,
    outcome: decision?.outcome ?? null,
    intent_id: decision?.intent_id ?? null,
    execution,
    receipts: mine,
    note:
      decision === null
        ? 'no receipt of this caller names the key: a missing receipt does not prove nothing was committed; give the task id and step to the operator before sending a new request'
        : 'found in the journal; a claim is not proof of downstream success (see execution for a brokered call)',
  };
}
