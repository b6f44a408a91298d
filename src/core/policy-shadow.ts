/**
 * A tenant's shadow policy: a candidate the daemon evaluates every live decision against as
 * well, after the commit, recording only where its verdict differs from the policy in force.
 * It never decides anything. One candidate per tenant; setting another (or clearing it)
 * forgets the differences of the one before, so a report always speaks of one candidate.
 */
import { asker, type UseCase } from './use-case.js';

export interface ShadowRecord {
  tenantId: string;
  /** new with every `set`: what the daemon compiles by and what recorded rows belong to */
  candidateId: string;
  text: string;
  /** where the text came from (the file name given), for the report */
  source: string;
  setAt: string;
  /** decisions compared with the candidate */
  compared: number;
  /** decisions not compared because a daemon's shadow queue was full */
  dropped: number;
  /** decisions not compared because the candidate did not compile against the registrations */
  uncompiled: number;
  /** why the candidate last failed to compile, while it does not compile */
  failure: string | null;
  /** the tenant's registry version that failure was found under */
  failureRegistryVersion: number | null;
}

/**
 * One request whose verdict the candidate changes, as stored: a `PolicyDifference`
 * (policy/policy-difference.ts) keyed by its journal sequence. Its parts are stored as JSON
 * and checked when read back; core does not look inside them.
 */
export interface ShadowDifference {
  seq: number;
  intentId: string;
  at: string;
  inputs: object;
  current: object;
  candidate: object;
}

/** What one daemon adds to the tally of a candidate, with the differences it found. */
export interface ShadowBatch {
  tenantId: string;
  candidateId: string;
  compared: number;
  dropped: number;
  uncompiled: number;
  /** set: the candidate does not compile under this registry version; null: it compiles */
  failure?: { message: string; registryVersion: number } | null;
  differences: ShadowDifference[];
}

export interface ShadowOps {
  shadow(tenantId: string): ShadowRecord | undefined;
  /** insert or replace the tenant's candidate, counters as given */
  putShadow(record: ShadowRecord): void;
  deleteShadow(tenantId: string): number;
  /** every recorded difference of the tenant, whatever the candidate */
  forgetDifferences(tenantId: string): void;
  /** the batch's counters added to the candidate's row and its failure as given; the rows changed */
  addTally(batch: ShadowBatch): number;
  /** the differences inserted; one already recorded (same tenant, candidate and sequence) stays */
  insertDifferences(batch: ShadowBatch): void;
}

const ask = asker<ShadowOps>();

/** A new candidate: the differences and counts of any earlier one are forgotten. */
export function* setShadow(
  input: Pick<ShadowRecord, 'tenantId' | 'candidateId' | 'text' | 'source' | 'setAt'>,
): UseCase<ShadowOps, ShadowRecord> {
  const record: ShadowRecord = {
    ...input,
    compared: 0,
    dropped: 0,
    uncompiled: 0,
    failure: null,
    failureRegistryVersion: null,
  };
  // The candidate's row first: on PostgreSQL its row lock waits for a daemon's batch in
  // flight, so the differences that batch wrote are there to be forgotten.
  yield* ask('putShadow', record);
  yield* ask('forgetDifferences', input.tenantId);
  return record;
}

/** Clears the tenant's candidate and its differences; whether there was one. */
export function* clearShadow(tenantId: string): UseCase<ShadowOps, boolean> {
  const existed = (yield* ask('deleteShadow', tenantId)) > 0;
  yield* ask('forgetDifferences', tenantId);
  return existed;
}

/**
 * Records what a daemon compared. A batch for a candidate that was since cleared or replaced
 * is dropped whole: its differences would otherwise land in the next candidate's report.
 */
export function* recordShadow(batch: ShadowBatch): UseCase<ShadowOps, boolean> {
  if ((yield* ask('addTally', batch)) === 0) return false;
  if (batch.differences.length > 0) yield* ask('insertDifferences', batch);
  return true;
}
