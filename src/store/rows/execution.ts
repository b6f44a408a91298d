import type { ExecutionState, StoredExecution } from '../../core/execution.js';
import type { DbInt } from './numbers.js';

/** An executions row as both drivers return it (the columns both adapters read). */
export interface ExecutionRow {
  tenant_id: string;
  id: string;
  intent_id: string;
  task_id: string;
  step: string;
  actor_id: string;
  capability: string;
  action: string;
  tier: DbInt;
  surface_id: string;
  operation: string;
  credential_ref: string;
  state: ExecutionState;
}

export const storedExecution = (row: ExecutionRow): StoredExecution => ({
  tenantId: row.tenant_id,
  id: row.id,
  intentId: row.intent_id,
  taskId: row.task_id,
  step: row.step,
  actorId: row.actor_id,
  capability: row.capability,
  action: row.action,
  tier: Number(row.tier),
  surfaceId: row.surface_id,
  operation: row.operation,
  credentialRef: row.credential_ref,
  state: row.state,
});
