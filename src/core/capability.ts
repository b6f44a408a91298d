import { SvcError, invalidField } from './errors.js';
import type { Micros } from './money.js';

export const CUSTODIES = ['grant', 'brokered', 'pass_through'] as const;
export type Custody = (typeof CUSTODIES)[number];

/** Capability names are dotted identifiers (`crm.contacts.create`); verbs are short words. */
export const CAPABILITY_NAME = /^[a-z0-9][a-z0-9._:-]{0,127}$/;
export const VERB = /^[a-z][a-z0-9_-]{0,31}$/;
export const MAX_TIER = 9;

export interface Capability {
  tenantId: string;
  name: string;
  /** risk tier 0..9; at or above the tenant's approval tier an approval is required */
  tier: number;
  irreversible: boolean;
  custody: Custody;
  /** the verbs a request may name */
  actions: string[];
  /** default estimate when a request names no amount */
  costMicros: Micros;
  /** listed in the catalogue for actors who do not hold it */
  requestable: boolean;
  /** actors who may approve besides holders of the approver role */
  approvers: string[];
  /** actors who receive manager cards for access requests besides the agent's manager */
  owners: string[];
  /** brokered custody: the surface and operation that execute it */
  surfaceId: string | null;
  operation: string | null;
  createdAt: string;
  updatedAt: string;
}

export function checkCapabilityName(field: string, value: unknown): string {
  if (typeof value !== 'string' || !CAPABILITY_NAME.test(value)) {
    throw invalidField(
      field,
      'a capability name: lowercase letters, digits, ".", "_", ":" or "-", up to 128 characters',
    );
  }
  return value;
}

export function checkVerbs(field: string, verbs: readonly string[]): string[] {
  const out = [...new Set(verbs.map((v) => v.trim()))];
  if (out.length === 0) throw invalidField(field, 'at least one verb, such as read or write');
  for (const v of out)
    if (!VERB.test(v)) throw invalidField(field, `verbs of lowercase letters (got "${v}")`);
  return out.sort();
}

export function checkTier(field: string, tier: number): number {
  if (!Number.isInteger(tier) || tier < 0 || tier > MAX_TIER)
    throw invalidField(field, `an integer from 0 to ${MAX_TIER}`);
  return tier;
}

/** Cross-field rules of a capability registration. */
export function checkCustody(c: Pick<Capability, 'custody' | 'surfaceId' | 'operation'>): void {
  if (c.custody === 'brokered' && (c.surfaceId === null || c.operation === null)) {
    throw new SvcError('invalid_request', 'surface: a brokered capability names a surface and an operation', {
      field: 'surface',
      remedy: 'add --surface <id> --operation <name>',
    });
  }
  if (c.custody !== 'brokered' && (c.surfaceId !== null || c.operation !== null)) {
    throw new SvcError(
      'invalid_request',
      'surface: only brokered capabilities name a surface and an operation',
      { field: 'surface' },
    );
  }
}
