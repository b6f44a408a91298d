import {
  CUSTODIES,
  checkCapabilityName,
  checkCustody,
  checkTier,
  checkVerbs,
  type Capability,
  type Custody,
} from '../core/capability.js';
import { invalidField } from '../core/errors.js';
import { checkSlug } from '../core/ids.js';
import { formatUsd } from '../core/money.js';
import type { Store } from '../store/ports.js';
import type { PutResult } from '../store/registry-ports.js';
import { parseAmount } from './amount.js';
import { checkActorsOfKind, requireTenant, storeActors, type ActorLookup } from './references.js';

/** A registration as the CLI flags and the deployment document give it; fields named by flag. */
export interface CapabilityInput {
  tenantId: string;
  name: string;
  tier: number;
  irreversible?: boolean;
  custody?: string;
  /** verbs; an entry may be a comma list */
  actions: readonly string[];
  /** USD: text from a flag, a number from a document */
  costUsd?: string | number;
  requestable?: boolean;
  approvers?: readonly string[];
  owners?: readonly string[];
  surface?: string;
  operation?: string;
}

/** The stable `--json` shape of a capability. */
export interface CapabilityView {
  tenant_id: string;
  name: string;
  tier: number;
  irreversible: boolean;
  custody: Custody;
  actions: string[];
  cost_usd: number;
  requestable: boolean;
  approvers: string[];
  owners: string[];
  surface: string | null;
  operation: string | null;
  created_at: string;
  updated_at: string;
}

export interface RegisteredCapability extends CapabilityView {
  result: PutResult;
  /** the fields an update changed, by their --json names */
  changed: string[];
}

const OPERATION = /^[A-Za-z0-9][A-Za-z0-9._:/-]{0,127}$/;

export function capabilityView(c: Capability): CapabilityView {
  return {
    tenant_id: c.tenantId,
    name: c.name,
    tier: c.tier,
    irreversible: c.irreversible,
    custody: c.custody,
    actions: c.actions,
    cost_usd: formatUsd(c.costMicros),
    requestable: c.requestable,
    approvers: c.approvers,
    owners: c.owners,
    surface: c.surfaceId,
    operation: c.operation,
    created_at: c.createdAt,
    updated_at: c.updatedAt,
  };
}

/** Validate every field; approvers and owners must be registered humans (per `lookup`). */
export async function prepareCapability(
  input: CapabilityInput,
  lookup: ActorLookup,
  at: string,
): Promise<Capability> {
  const name = checkCapabilityName('name', input.name);
  const tier = checkTier('tier', input.tier);
  const custody = input.custody ?? 'grant';
  if (!(CUSTODIES as readonly string[]).includes(custody)) {
    throw invalidField('custody', `one of ${CUSTODIES.join(', ')}`);
  }
  const verbs = input.actions.flatMap((a) => a.split(',')).filter((v) => v.trim() !== '');
  const cap: Capability = {
    tenantId: input.tenantId,
    name,
    tier,
    irreversible: input.irreversible ?? false,
    custody: custody as Custody,
    actions: checkVerbs('actions', verbs),
    costMicros: parseAmount('cost-usd', input.costUsd),
    requestable: input.requestable ?? false,
    approvers: await checkActorsOfKind('approver', input.approvers ?? [], 'human', lookup, input.tenantId),
    owners: await checkActorsOfKind('owner', input.owners ?? [], 'human', lookup, input.tenantId),
    surfaceId: input.surface === undefined ? null : checkSlug('surface', input.surface),
    operation: input.operation === undefined ? null : checkOperation(input.operation),
    createdAt: at,
    updatedAt: at,
  };
  checkCustody(cap);
  return cap;
}

function checkOperation(value: string): string {
  if (!OPERATION.test(value)) {
    throw invalidField('operation', 'an operation name of letters, digits, ".", "_", ":", "/" or "-"');
  }
  return value;
}

/** The --json names of the fields on which two registrations differ. */
export function changedFields(before: Capability | undefined, after: Capability): string[] {
  if (before === undefined) return [];
  const a = capabilityView(before);
  const b = capabilityView(after);
  const keys = Object.keys(a).filter(
    (k) => !['created_at', 'updated_at'].includes(k),
  ) as (keyof CapabilityView)[];
  return keys.filter((k) => JSON.stringify(a[k]) !== JSON.stringify(b[k]));
}

/**
 * Register a capability, or replace the registration of one with the same name: the flags
 * given are the whole registration. Refused when the change would drop a verb the tenant's
 * stored policy names, since that policy would no longer validate.
 */
export async function registerCapability(
  store: Store,
  input: CapabilityInput,
  now: Date,
): Promise<RegisteredCapability> {
  await requireTenant(store, input.tenantId);
  const cap = await prepareCapability(input, storeActors(store, input.tenantId), now.toISOString());
  const before = await store.capabilities.get(cap.tenantId, cap.name);
  // Loaded here so `capability list` does not pay for the policy engine at start-up.
  const { checkStoredPolicyAfter } = await import('./policy.js');
  await checkStoredPolicyAfter(store, cap.tenantId, [cap]);
  const result = await store.capabilities.put(cap);
  const stored = (await store.capabilities.get(cap.tenantId, cap.name)) ?? cap;
  return { ...capabilityView(stored), result, changed: changedFields(before, cap) };
}

export async function listCapabilities(store: Store, tenantId: string): Promise<CapabilityView[]> {
  await requireTenant(store, tenantId);
  return (await store.capabilities.list(tenantId)).map(capabilityView);
}
