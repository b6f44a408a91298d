/**
 * A replay: recorded decisions put again to a candidate policy with the inputs they were
 * decided with (the actor's and the capability's attributes then, not now), each compared
 * with the verdict the policy in force gave, rebuilt from what was recorded. Pure: the
 * caller reads the records (read-only) and feeds them in, a page at a time.
 *
 * Nothing is guessed: a decision with no recorded inputs (decided before they were
 * recorded, or refused before the policy step) is counted and skipped, and one whose
 * stored bodies do not read back is counted as unreadable.
 */
import { z } from 'zod';
import { ACTOR_KINDS } from '../core/actor.js';
import { REFUSAL_CODES } from '../core/decision/outcome.js';
import type { RecordedDecision, StoredInputs } from '../core/decision/recorded-inputs.js';
import { authorize, type PolicyDecision } from './authorization.js';
import type { CompiledPolicySet } from './policy-set.js';
import { requestOf, type PolicyInputs } from './policy-inputs.js';
import {
  differs,
  summarise,
  verdictOf,
  type DifferenceReport,
  type PolicyDifference,
} from './policy-difference.js';

export interface ReplayCounts {
  /** decision records read in the range */
  read: number;
  /** of them, replayed against the candidate (the report's `evaluated`) */
  replayed: number;
  /** skipped: reached the policy step, but decided before inputs were recorded */
  unrecorded: number;
  /** skipped: refused before the policy step, so no policy ever answered them */
  beforePolicy: number;
  /** skipped: inputs recorded, but a stored body does not read back */
  unreadable: number;
}

export interface ReplayResult {
  counts: ReplayCounts;
  /** the policy versions the replayed decisions were decided by, ascending */
  versions: number[];
  /** the first and last journal sequence replayed, when any was */
  range: { from: number; to: number } | undefined;
  report: DifferenceReport;
}

/** Refusals whose check comes before the policy's (semantics.md's order). */
const BEFORE_POLICY = new Set<string>(REFUSAL_CODES.slice(0, REFUSAL_CODES.indexOf('no_policy')));

const actorBody = z.strictObject({
  id: z.string().min(1),
  kind: z.enum(ACTOR_KINDS),
  manager: z.string().nullable(),
  roles: z.array(z.string()),
});
const capabilityBody = z.strictObject({
  custody: z.string(),
  id: z.string().min(1),
  irreversible: z.boolean(),
  tier: z.number().int(),
});
const determiningBody = z.array(z.string());

export class Replay {
  private readonly counts: ReplayCounts = {
    read: 0,
    replayed: 0,
    unrecorded: 0,
    beforePolicy: 0,
    unreadable: 0,
  };
  private readonly differences: PolicyDifference[] = [];
  private readonly versions = new Set<number>();
  /** parsed bodies per kind (schema) and id */
  private readonly bodies = new Map<z.ZodType, Map<number, unknown>>();
  private first: number | undefined;
  private last: number | undefined;

  constructor(
    private readonly tenantId: string,
    private readonly candidate: CompiledPolicySet,
    /** the tenant's stored bodies by id (`RecordedDecisions.snapshots`) */
    private readonly snapshots: ReadonlyMap<number, string>,
  ) {}

  add(batch: readonly RecordedDecision[]): void {
    for (const d of batch) this.one(d);
  }

  finish(examplesPer = 3): ReplayResult {
    return {
      counts: { ...this.counts },
      versions: [...this.versions].sort((a, b) => a - b),
      range: this.first === undefined ? undefined : { from: this.first, to: this.last! },
      report: summarise(this.counts.replayed, this.differences, examplesPer),
    };
  }

  private one(d: RecordedDecision): void {
    this.counts.read += 1;
    if (d.inputs === undefined) {
      if (d.code !== null && BEFORE_POLICY.has(d.code)) this.counts.beforePolicy += 1;
      else this.counts.unrecorded += 1;
      return;
    }
    const inputs = this.inputsOf(d, d.inputs);
    const determining = this.body(d.inputs.determining, determiningBody);
    if (inputs === undefined || determining === undefined) {
      this.counts.unreadable += 1;
      return;
    }
    this.counts.replayed += 1;
    this.versions.add(d.inputs.policyVersion);
    this.first ??= d.sequence;
    this.last = d.sequence;
    const recorded: PolicyDecision = {
      decision: d.inputs.allow ? 'allow' : 'deny',
      basis: d.inputs.noPolicy ? 'no_policy_set' : d.inputs.allow ? 'permit' : 'forbid',
      determining,
    };
    const current = verdictOf(recorded, inputs);
    const candidate = verdictOf(authorize(this.candidate, requestOf(this.tenantId, inputs)), inputs);
    if (differs(current, candidate)) {
      this.differences.push({ intentId: d.intentId, seq: d.sequence, at: d.at, inputs, current, candidate });
    }
  }

  private inputsOf(d: RecordedDecision, s: StoredInputs): PolicyInputs | undefined {
    const actor = this.body(s.actor, actorBody);
    const capability = this.body(s.capability, capabilityBody);
    if (actor === undefined || capability === undefined || d.taskId === '') return undefined;
    return {
      actor,
      capability,
      action: s.action,
      taskId: d.taskId,
      amountMicros: s.amountMicros.toString(),
      route: s.brokered ? 'brokered' : 'action',
      nowEpochS: s.nowEpochS,
      approvalTier: s.approvalTier,
    };
  }

  /** A stored body, parsed and checked once per id; undefined when it is missing or malformed. */
  private body<T>(id: number, schema: z.ZodType<T>): T | undefined {
    let parsedOnce = this.bodies.get(schema);
    if (!parsedOnce) this.bodies.set(schema, (parsedOnce = new Map()));
    if (!parsedOnce.has(id)) {
      const text = this.snapshots.get(id);
      let parsed: unknown;
      try {
        parsed = text === undefined ? undefined : JSON.parse(text);
      } catch {
        parsed = undefined;
      }
      const checked = schema.safeParse(parsed);
      parsedOnce.set(id, checked.success ? checked.data : undefined);
    }
    return parsedOnce.get(id) as T | undefined;
  }
}
