import { microsToDecimal, parseUsd, type Micros } from './money.js';

/**
 * A root task's execution plan (semantics.md, Tasks and execution constraints): installed
 * once by the sponsor, never changed. Stored as this JSON, with the wire's field names, in
 * `tasks.constraints`; every bound is optional and an absent bound admits anything.
 */
export interface ExecutionPlan {
  /** capability names the tree may use */
  capabilities?: string[];
  /** actor ids that may act in the tree */
  actors?: string[];
  max_amount_usd_per_action?: number;
  /** over every admission of the tree */
  max_total_usd?: number;
  max_actions?: number;
  /** date-time: no admission before it */
  not_before?: string;
  /** date-time: no admission at or after it */
  not_after?: string;
}

/** What the tree's admissions ledger already holds. */
export interface ConstraintUsage {
  count: number;
  totalMicros: Micros;
}

export interface ConstraintQuery {
  capability: string;
  actorId: string;
  amountMicros: Micros;
  now: Date;
}

export type Admission = { ok: true } | { ok: false; reason: string; remedy?: string };

const usd = (m: Micros) => `${microsToDecimal(m)} USD`;
const NO_CHANGE = 'the plan can never be changed: start a new root task with its own plan';

const isStringList = (v: unknown): v is string[] => Array.isArray(v) && v.every((x) => typeof x === 'string');
const isInstant = (v: unknown): v is string => typeof v === 'string' && !Number.isNaN(Date.parse(v));

function micros(v: unknown): Micros | undefined {
  try {
    return parseUsd(v, 'amount');
  } catch {
    return undefined;
  }
}

interface Bounds extends Omit<ExecutionPlan, 'max_amount_usd_per_action' | 'max_total_usd'> {
  perAction?: Micros;
  total?: Micros;
}

/**
 * The plan was validated by the closed schema when it was installed. A stored value that no
 * longer reads as one (a damaged row) refuses rather than admits: an unreadable bound is
 * not an absent bound.
 */
function readPlan(value: unknown): Bounds | undefined {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return undefined;
  const p = value as Record<string, unknown>;
  const perAction =
    p.max_amount_usd_per_action === undefined ? undefined : micros(p.max_amount_usd_per_action);
  const total = p.max_total_usd === undefined ? undefined : micros(p.max_total_usd);
  const ok =
    (p.capabilities === undefined || isStringList(p.capabilities)) &&
    (p.actors === undefined || isStringList(p.actors)) &&
    (p.max_amount_usd_per_action === undefined || perAction !== undefined) &&
    (p.max_total_usd === undefined || total !== undefined) &&
    (p.max_actions === undefined || Number.isSafeInteger(p.max_actions)) &&
    (p.not_before === undefined || isInstant(p.not_before)) &&
    (p.not_after === undefined || isInstant(p.not_after));
  if (!ok) return undefined;
  const { max_amount_usd_per_action: _a, max_total_usd: _t, ...rest } = p as ExecutionPlan;
  return {
    ...rest,
    ...(perAction !== undefined ? { perAction } : {}),
    ...(total !== undefined ? { total } : {}),
  };
}

/**
 * Whether the root's plan admits one more action (decision step 8). Pure; `usage` is read
 * in the decision's own transaction, so two racing decisions cannot both take the last slot.
 */
export function admits(plan: unknown, usage: ConstraintUsage, q: ConstraintQuery): Admission {
  const p = readPlan(plan);
  if (!p) return { ok: false, reason: 'the execution constraints of the task cannot be read' };
  const at = q.now.getTime();
  if (p.not_before !== undefined && at < Date.parse(p.not_before)) {
    return {
      ok: false,
      reason: `the task's execution window opens at ${p.not_before}`,
      remedy: `send the request again at or after ${p.not_before}`,
    };
  }
  if (p.not_after !== undefined && at >= Date.parse(p.not_after)) {
    return { ok: false, reason: `the task's execution window closed at ${p.not_after}`, remedy: NO_CHANGE };
  }
  if (p.actors !== undefined && !p.actors.includes(q.actorId)) {
    return {
      ok: false,
      reason: `the task's execution constraints do not admit actor ${q.actorId}`,
      remedy: `only ${p.actors.join(', ')} may act in this task`,
    };
  }
  if (p.capabilities !== undefined && !p.capabilities.includes(q.capability)) {
    return {
      ok: false,
      reason: `the task's execution constraints do not admit capability ${q.capability}`,
      remedy: `use one of: ${p.capabilities.join(', ')}`,
    };
  }
  if (p.perAction !== undefined) {
    const bound = p.perAction;
    if (q.amountMicros > bound) {
      return {
        ok: false,
        reason: `${usd(q.amountMicros)} is above the task's bound of ${usd(bound)} per action`,
        remedy: `lower amount_usd to at most ${microsToDecimal(bound)}`,
      };
    }
  }
  if (p.max_actions !== undefined && usage.count >= p.max_actions) {
    return {
      ok: false,
      reason: `the task's execution constraints admit ${p.max_actions} actions and all were admitted`,
      remedy: NO_CHANGE,
    };
  }
  if (p.total !== undefined) {
    const bound = p.total;
    if (usage.totalMicros + q.amountMicros > bound) {
      const left = bound > usage.totalMicros ? bound - usage.totalMicros : 0n;
      return {
        ok: false,
        reason: `the task's execution constraints admit ${usd(bound)} in total; ${usd(left)} is left and this action needs ${usd(q.amountMicros)}`,
        remedy: left > 0n ? `lower amount_usd to at most ${microsToDecimal(left)}` : NO_CHANGE,
      };
    }
  }
  return { ok: true };
}
