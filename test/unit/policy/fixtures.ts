import type { PolicyRequest } from '../../../src/policy/authorization.js';

export const VERBS = ['read', 'write', 'delete'];

/** An agent with a manager reading a tier-1, reversible capability for 5 USD. */
export function request(overrides: Partial<PolicyRequest> = {}): PolicyRequest {
  return {
    tenantId: 'acme',
    actor: { id: 'agent-1', kind: 'agent', roles: [], manager: 'alice' },
    capability: { id: 'crm.contacts', tier: 1, irreversible: false, custody: 'brokered' },
    action: 'read',
    taskId: 'task-1',
    amountMicros: 5_000_000n,
    route: 'action',
    nowEpochS: 1_700_000_000,
    ...overrides,
  };
}
