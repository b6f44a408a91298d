import type { Actor } from '../../core/actor.js';
import type { DecisionRequest } from '../../core/decision/request.js';
import type { EffectKeyState } from '../../core/decision/state.js';
import type { DecisionWrites } from '../../core/decision/writes.js';
import type { JournalWrite } from '../../evidence/journal-append.js';
import type { LogState } from '../../evidence/journal-entry.js';
import type { SharedRun } from './commit-queue.js';
import {
  finishState,
  loadDecisionState,
  loadDecisionStates,
  type LoadedState,
  type StateRequest,
  type StateRow,
} from './decision-state.js';
import { journalBatchParts } from './journal.js';
import type { PgTx } from './database.js';
import { mergeInserts, writeAll, type WritePart } from './write-parts.js';

/** Decisions written by one statement at most: its JSON rows stay a few hundred kilobytes. */
const WRITE_CHUNK = 200;

/** One decision's writes, held until the batch writes them. */
interface Held {
  tenantId: string;
  reserve: { taskId: string; amountMicros: bigint } | undefined;
  parts: WritePart[];
  journal: JournalWrite;
}

const keyOf = (...parts: string[]): string => JSON.stringify(parts);

/**
 * The decisions of one group-commit batch, sharing one state read and one write.
 *
 * Without it every decision of a batch costs two round trips under the tenant lock (its
 * state read, its writes) and two executor starts on the server. Here the first decision to
 * load reads the state of every decision of the batch in one statement; each then decides
 * in turn on that state as the decisions before it in the batch changed it (the overlay
 * below), and their writes wait to go out together, a table at a time, when the batch ends.
 *
 * The overlay follows exactly the writes that a plain new decision makes and the state read
 * sees: a task's reservation, a constraints root's admissions, a new claimed effect key (with
 * its new intent) and the tenant's log state. Everything else a decision writes (grants,
 * executions, inputs, journal rows) is never read by a later decision's state read. A
 * decision whose writes the overlay does not follow (an approval opened or consumed, a
 * resume, a deferral), or a job of another kind in the batch, ends the sharing: what is held
 * is written first, and every later decision reads and writes on its own as before. A
 * decision that asks the store anything else (its events, a standing receipt, open
 * approvals) has what is held written first, so the database it asks is current.
 *
 * The guards stay in the written statement: every reservation must still fit its budget and
 * every key and sequence must be new. Should one fail, the batch runs again without sharing
 * (commit-queue.ts), so a wrong overlay of a reservation, a key or the log state could cost
 * time but never an overspent budget, a second allow or a forked log. Admissions have no
 * such backstop (an execution plan's count is judged on the state read, as without sharing):
 * that overlay rests on its test (decision-batch.test.ts admits exactly the plan's count).
 */
export class DecisionBatch implements SharedRun {
  private rows: Promise<(StateRow | undefined)[]> | undefined;
  private sharing = true;
  private held: Held[] = [];
  private readonly reserved = new Map<string, bigint>();
  private readonly admitted = new Map<string, { count: number; micros: bigint }>();
  private readonly keys = new Map<string, EffectKeyState>();
  private readonly logs = new Map<string, LogState>();

  constructor(
    private readonly tx: PgTx,
    private readonly requests: (StateRequest | undefined)[],
  ) {}

  /** The state the decision at `index` reads: the batch's read with the batch's writes so far. */
  async load(index: number, req: DecisionRequest, caller: Actor, now: Date): Promise<LoadedState> {
    if (!this.sharing) return loadDecisionState(this.tx, req, caller, now);
    this.rows ??= loadDecisionStates(this.tx, this.requests);
    const row = (await this.rows)[index];
    if (!row) throw new Error(`tenant ${req.tenantId} vanished`);
    const loaded = finishState(req, caller, now, row);
    const t = req.tenantId;
    const s = loaded.state;
    const task = s.task && {
      ...s.task,
      reservedMicros: s.task.reservedMicros + (this.reserved.get(keyOf(t, s.task.id)) ?? 0n),
    };
    const admitted = s.constraints && this.admitted.get(keyOf(t, s.constraints.rootId));
    const constraints =
      s.constraints && admitted
        ? {
            ...s.constraints,
            admittedCount: s.constraints.admittedCount + admitted.count,
            admittedMicros: s.constraints.admittedMicros + admitted.micros,
          }
        : s.constraints;
    const key = this.keys.get(keyOf(t, req.taskId, req.step));
    return {
      ...loaded,
      log: this.logs.get(t) ?? loaded.log,
      state: {
        ...s,
        task,
        constraints,
        ...(key ? { effectKey: key, approval: undefined } : {}),
      },
    };
  }

  /** Whether the batch can hold these writes: it still shares, and the overlay follows all they change. */
  follows(p: DecisionWrites): boolean {
    const k = p.effectKey;
    return (
      this.sharing &&
      p.consumeApproval === undefined &&
      p.openApproval === undefined &&
      p.intentWrite === 'insert' &&
      (k === undefined || (k.op === 'insert' && k.state === 'claimed'))
    );
  }

  /** Hold a followed decision's writes (reservation apart) and its journal append, and note what they change. */
  hold(p: DecisionWrites, parts: WritePart[], journal: JournalWrite): void {
    const t = p.tenantId;
    if (p.reserve) {
      const k = keyOf(t, p.reserve.taskId);
      this.reserved.set(k, (this.reserved.get(k) ?? 0n) + p.reserve.amountMicros);
    }
    if (p.admission) {
      const k = keyOf(t, p.admission.rootId);
      const a = this.admitted.get(k) ?? { count: 0, micros: 0n };
      this.admitted.set(k, { count: a.count + 1, micros: a.micros + p.admission.amountMicros });
    }
    if (p.effectKey?.op === 'insert') {
      const i = p.intent;
      this.keys.set(keyOf(t, p.effectKey.taskId, p.effectKey.step), {
        state: p.effectKey.state,
        intentId: p.effectKey.intentId,
        actorId: i.actorId,
        requestDigest: p.effectKey.requestDigest,
        route: i.route,
        outcome: i.outcome,
        approvalId: i.approvalId,
      });
    }
    this.logs.set(t, journal.state);
    this.held.push({ tenantId: t, reserve: p.reserve, parts, journal });
  }

  /** Write what is held, so the database answers as if every decision so far had written alone. */
  async sync(): Promise<void> {
    const held = this.held;
    this.held = [];
    for (let i = 0; i < held.length; i += WRITE_CHUNK) {
      const chunk = held.slice(i, i + WRITE_CHUNK);
      const parts = mergeInserts([
        ...reservationParts(chunk),
        ...chunk.flatMap((h) => h.parts),
        ...journalBatchParts(chunk.map((h) => h.journal)),
      ]);
      // one text per mix of tables written, whatever the count: prepared like the rest
      await writeAll(this.tx, parts);
    }
  }

  /** Write what is held and share no more: the decisions after this read and write alone. */
  async stop(): Promise<void> {
    await this.sync();
    this.sharing = false;
  }

  beforeOther(): Promise<void> {
    return this.stop();
  }

  finish(): Promise<void> {
    return this.sync();
  }
}

/**
 * The reservations of held decisions, summed per task, in one UPDATE whose guard is the one
 * each decision's own would have been: the task's reservation stays within its budget. Each
 * decision checked its amount against the reservation the decisions before it left, so the
 * sum fits exactly when each did.
 */
function reservationParts(held: Held[]): WritePart[] {
  const sums = new Map<string, { tenantId: string; taskId: string; micros: bigint }>();
  for (const h of held) {
    if (!h.reserve) continue;
    const k = keyOf(h.tenantId, h.reserve.taskId);
    const s = sums.get(k) ?? { tenantId: h.tenantId, taskId: h.reserve.taskId, micros: 0n };
    s.micros += h.reserve.amountMicros;
    sums.set(k, s);
  }
  if (sums.size === 0) return [];
  const rows = [...sums.values()];
  return [
    {
      what: 'the budget reservations',
      sql: `UPDATE tasks t SET reserved_micros = t.reserved_micros + d.amount
        FROM unnest($1::text[], $2::text[], $3::bigint[]) AS d(tenant_id, id, amount)
        WHERE t.tenant_id = d.tenant_id AND t.id = d.id AND t.reserved_micros + d.amount <= t.budget_micros`,
      params: [rows.map((r) => r.tenantId), rows.map((r) => r.taskId), rows.map((r) => r.micros.toString())],
      expectRows: rows.length,
    },
  ];
}
