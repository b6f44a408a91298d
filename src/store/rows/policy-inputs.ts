import type { RecordedDecision, RecordedInputs } from '../../core/decision/recorded-inputs.js';
import { int, micros, type DbInt } from './numbers.js';

/** The kinds of body a decision refers to instead of repeating them (recorded-inputs.ts). */
type SnapshotRefs = readonly [actor: number, capability: number, determining: number];

/** At most this many bodies are held per process: tenants rarely have more distinct ones. */
const MAX_HELD = 10_000;

/**
 * Snapshot ids by tenant and body. Keyed by the body itself, not a tenant-and-body string:
 * consecutive decisions hand in the very same body strings (recorded-inputs.ts keeps the last
 * ones), whose hashes the engine has already computed, so a lookup costs no new string.
 */
export class SnapshotIdMap {
  private readonly byTenant = new Map<string, Map<string, number>>();
  private count = 0;

  get(tenantId: string, body: string): number | undefined {
    return this.byTenant.get(tenantId)?.get(body);
  }

  set(tenantId: string, body: string, id: number): void {
    let bodies = this.byTenant.get(tenantId);
    if (!bodies) this.byTenant.set(tenantId, (bodies = new Map()));
    if (!bodies.has(body)) this.count++;
    bodies.set(body, id);
  }

  get size(): number {
    return this.count;
  }

  clear(): void {
    this.byTenant.clear();
    this.count = 0;
  }

  *entries(): IterableIterator<[tenantId: string, body: string, id: number]> {
    for (const [tenantId, bodies] of this.byTenant)
      for (const [body, id] of bodies) yield [tenantId, body, id];
  }
}

/**
 * The ids of stored snapshot bodies, per tenant and body, so a decision whose actor,
 * capability and determining policies were seen before writes only their ids: no hash, no
 * read. An id is held only once the transaction that wrote or read it has committed (see
 * `remember`): a batch that rolls back can take a just-inserted row with it, and a held id
 * must never name a row that is not there. Rows are never changed or deleted, so an id held
 * stays right whichever process wrote it.
 */
export class SnapshotIds {
  private readonly held = new SnapshotIdMap();

  /** the id held for this tenant's body, if any */
  get(tenantId: string, body: string): number | undefined {
    return this.held.get(tenantId, body);
  }

  /** hold what a job learned, once its transaction has committed */
  remember(learned: SnapshotIdMap): void {
    if (this.held.size + learned.size > MAX_HELD) this.held.clear();
    for (const [tenantId, body, id] of learned.entries()) this.held.set(tenantId, body, id);
  }
}

/** The bodies of one record, in `SnapshotRefs` order. */
export const bodiesOf = (i: RecordedInputs): readonly [string, string, string] => [
  i.actor,
  i.capability,
  i.determining,
];

/** The `decision_inputs` row's values, in column order (both adapters insert in this order). */
export function inputsValues(
  tenantId: string,
  sequence: number,
  i: RecordedInputs,
  refs: SnapshotRefs,
  flag: (b: boolean) => number | boolean = (b) => (b ? 1 : 0),
): unknown[] {
  return [
    tenantId,
    sequence,
    i.policyVersion,
    refs[0],
    refs[1],
    refs[2],
    i.action,
    i.amountMicros,
    flag(i.brokered),
    i.nowEpochS,
    i.approvalTier,
    flag(i.allow),
    flag(i.noPolicy),
  ];
}

export const INPUTS_COLUMNS =
  'tenant_id, sequence, policy_version, actor, capability, determining, action, amount_micros, brokered, now_epoch_s, approval_tier, allow, no_policy';

/**
 * What replay reads per decision journal record, with its inputs where they were recorded
 * (the LEFT JOIN's columns are then null), and the refusal code for those without.
 */
export interface RecordedRow {
  sequence: DbInt;
  intent_id: string;
  task_id: string | null;
  occurred_at: string;
  code: string | null;
  policy_version: DbInt | null;
  actor: DbInt | null;
  capability: DbInt | null;
  determining: DbInt | null;
  action: string | null;
  amount_micros: DbInt | null;
  brokered: DbInt | null;
  now_epoch_s: DbInt | null;
  approval_tier: DbInt | null;
  allow: DbInt | null;
  no_policy: DbInt | null;
}

/** The decision columns replay reads, over `journal j LEFT JOIN decision_inputs d`. */
export const RECORDED_COLUMNS = `j.sequence, j.intent_id, j.task_id, j.occurred_at,
  d.policy_version, d.actor, d.capability, d.determining, d.action, d.amount_micros, d.brokered,
  d.now_epoch_s, d.approval_tier, d.allow, d.no_policy`;

export function toRecordedDecision(r: RecordedRow): RecordedDecision {
  const base = {
    sequence: int(r.sequence),
    intentId: r.intent_id,
    taskId: r.task_id ?? '',
    at: r.occurred_at,
  };
  if (r.policy_version === null) return { ...base, inputs: undefined, code: r.code };
  return {
    ...base,
    code: r.code,
    inputs: {
      policyVersion: int(r.policy_version),
      actor: int(r.actor!),
      capability: int(r.capability!),
      determining: int(r.determining!),
      action: r.action!,
      amountMicros: micros(r.amount_micros!),
      brokered: int(r.brokered!) === 1,
      nowEpochS: int(r.now_epoch_s!),
      approvalTier: int(r.approval_tier!),
      allow: int(r.allow!) === 1,
      noPolicy: int(r.no_policy!) === 1,
    },
  };
}
