import type { ShadowBatch, ShadowRecord } from '../../core/policy-shadow.js';
import {
  POLICY_OUTCOMES,
  type PolicyDifference,
  type PolicyVerdict,
} from '../../policy/policy-difference.js';
import { parseInputs } from '../../policy/policy-inputs.js';
import { int, intOrNull, type DbInt } from './numbers.js';

/** A policy_shadows row as both drivers return it. */
export interface ShadowRow {
  tenant_id: string;
  candidate_id: string;
  text: string;
  source: string;
  set_at: string;
  compared: DbInt;
  dropped: DbInt;
  uncompiled: DbInt;
  failure: string | null;
  failure_registry_version: DbInt | null;
}

export const toShadowRecord = (r: ShadowRow): ShadowRecord => ({
  tenantId: r.tenant_id,
  candidateId: r.candidate_id,
  text: r.text,
  source: r.source,
  setAt: r.set_at,
  compared: int(r.compared),
  dropped: int(r.dropped),
  uncompiled: int(r.uncompiled),
  failure: r.failure,
  failureRegistryVersion: intOrNull(r.failure_registry_version),
});

/** A policy_shadow_differences row. */
export interface ShadowDifferenceRow {
  seq: DbInt;
  intent_id: string;
  decided_at: string;
  inputs: string;
  current: string;
  candidate: string;
}

/** The columns of one difference, in the INSERT's order after tenant and candidate. */
export function differenceValues(d: ShadowBatch['differences'][number]): (string | number)[] {
  return [
    d.seq,
    d.intentId,
    d.at,
    JSON.stringify(d.inputs),
    JSON.stringify(d.current),
    JSON.stringify(d.candidate),
  ];
}

/** A stored difference read back, checked; undefined when any part does not parse. */
export function toDifference(r: ShadowDifferenceRow): PolicyDifference | undefined {
  const inputs = parseInputs(parsed(r.inputs));
  const current = verdict(parsed(r.current));
  const candidate = verdict(parsed(r.candidate));
  if (!inputs || !current || !candidate) return undefined;
  return { intentId: r.intent_id, seq: int(r.seq), at: r.decided_at, inputs, current, candidate };
}

function parsed(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

function verdict(v: unknown): PolicyVerdict | undefined {
  if (typeof v !== 'object' || v === null) return undefined;
  const { outcome, code, determining } = v as Record<string, unknown>;
  if (!POLICY_OUTCOMES.includes(outcome as PolicyVerdict['outcome'])) return undefined;
  if (code !== undefined && code !== 'policy_denied' && code !== 'no_policy') return undefined;
  if (!Array.isArray(determining) || !determining.every((l) => typeof l === 'string')) return undefined;
  return {
    outcome: outcome as PolicyVerdict['outcome'],
    ...(code !== undefined ? { code: code as PolicyVerdict['code'] & string } : {}),
    determining: determining as string[],
  };
}
