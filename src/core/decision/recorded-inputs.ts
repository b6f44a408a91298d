import type { Micros } from '../money.js';
import type { PolicyQuestion, PolicyStep } from './outcome.js';

/**
 * What a decision that reached the policy step records of it, in its own transaction: the
 * policy version that decided, what the step was evaluated with, and its answer. The
 * actor's and the capability's attributes and the determining policies change rarely, so
 * they are JSON bodies the store keeps once per distinct value and refers to; the rest is
 * per request. The journal row it belongs to gives the task, the intent and the time.
 */
export interface RecordedInputs {
  /** `policies.version` of the compiled policy that answered; 0 when the tenant had none */
  policyVersion: number;
  /** `{"id","kind","manager","roles"}`, keys in this order: the same attributes give the same text */
  actor: string;
  /** `{"custody","id","irreversible","tier"}` */
  capability: string;
  /** the determining policies' labels, a JSON array */
  determining: string;
  action: string;
  amountMicros: Micros;
  brokered: boolean;
  nowEpochS: number;
  approvalTier: number;
  allow: boolean;
  noPolicy: boolean;
}

/**
 * The record of a policy step. The bodies are built with a fixed key order (not a
 * canonicaliser): this runs on every decision, and a body is only ever compared with bodies
 * built here.
 */
export function recordedInputs(step: PolicyStep, policyVersion: number): RecordedInputs {
  const { actor, capability } = step.question;
  return {
    policyVersion,
    actor: actorBody(actor),
    capability: capabilityBody(capability),
    determining: determiningBody(step.determining),
    action: step.question.action,
    amountMicros: step.question.amountMicros,
    brokered: step.question.route === 'brokered',
    nowEpochS: step.question.nowEpochS,
    approvalTier: step.approvalTier,
    allow: step.allow,
    noPolicy: step.noPolicy,
  };
}

type Actor = PolicyQuestion['actor'];
type Capability = PolicyQuestion['capability'];

const sameList = (a: readonly string[], b: readonly string[]) =>
  a.length === b.length && a.every((x, i) => x === b[i]);

/**
 * A body builder that keeps the last body it built. Consecutive decisions mostly come from
 * the same actor, for the same capability, with the same answer: while the attributes equal
 * the last ones, the body is that very string (the store then finds its id without building
 * or hashing another). What is compared is a copy, so a caller changing its object later
 * cannot make a stale body look current.
 */
function lastBody<T>(copy: (v: T) => T, same: (held: T, v: T) => boolean, build: (v: T) => string) {
  let held: { value: T; body: string } | undefined;
  return (v: T): string => {
    if (held === undefined || !same(held.value, v)) held = { value: copy(v), body: build(v) };
    return held.body;
  };
}

const actorBody = lastBody<Actor>(
  (a) => ({ id: a.id, kind: a.kind, manager: a.manager, roles: [...a.roles] }),
  (h, a) => h.id === a.id && h.kind === a.kind && h.manager === a.manager && sameList(h.roles, a.roles),
  (a) => JSON.stringify({ id: a.id, kind: a.kind, manager: a.manager, roles: a.roles }),
);

const capabilityBody = lastBody<Capability>(
  (c) => ({ custody: c.custody, id: c.id, irreversible: c.irreversible, tier: c.tier }),
  (h, c) =>
    h.custody === c.custody && h.id === c.id && h.irreversible === c.irreversible && h.tier === c.tier,
  (c) => JSON.stringify({ custody: c.custody, id: c.id, irreversible: c.irreversible, tier: c.tier }),
);

const determiningBody = lastBody<readonly string[]>(
  (d) => [...d],
  sameList,
  (d) => JSON.stringify(d),
);

/** One decision's recorded policy inputs, with its stored bodies still referred to by id. */
export interface StoredInputs {
  policyVersion: number;
  /** ids of snapshot bodies (see `RecordedInputs`) */
  actor: number;
  capability: number;
  determining: number;
  action: string;
  amountMicros: Micros;
  brokered: boolean;
  nowEpochS: number;
  approvalTier: number;
  allow: boolean;
  noPolicy: boolean;
}

/** A decision journal record as replay reads it. */
export interface RecordedDecision {
  sequence: number;
  intentId: string;
  taskId: string;
  /** when it was decided (RFC 3339) */
  at: string;
  /** undefined: nothing recorded (decided before inputs were recorded, or refused before the policy step) */
  inputs: StoredInputs | undefined;
  /** the refusal code of a refused decision (what tells the two apart when nothing was recorded) */
  code: string | null;
}
