import { SvcError } from '../../core/errors.js';
import type { ExecutionSubject } from '../../core/records/execution-record.js';
import type { ExecutionOutcome } from '../integration-ports.js';
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
  state: 'pending' | 'succeeded' | 'failed' | 'unknown';
}

export const INTERRUPTED_REASON =
  'the daemon stopped while the call to the provider was in flight: the effect may have happened. It was not sent again; reconcile with the provider';

/** The outcome start-up recovery seals for a call its daemon left in flight. */
export const INTERRUPTED: Readonly<ExecutionOutcome> = Object.freeze({
  outcome: 'unknown',
  sent: true,
  status: null,
  effectId: null,
  digest: null,
  bytes: 0,
  error: 'interrupted',
  reason: INTERRUPTED_REASON,
});

/** Refuses recording an outcome twice (or for an execution this tenant does not have). */
export function checkFinishable(row: ExecutionRow | undefined, executionId: string): ExecutionRow {
  if (!row) throw new SvcError('not_found', `execution ${executionId} does not exist in this tenant`);
  // 'unknown' is accepted too: start-up recovery may have judged a call that then answered.
  if (row.state !== 'pending' && row.state !== 'unknown') {
    throw new SvcError(
      'conflict',
      `the outcome of execution ${executionId} is already recorded (${row.state})`,
    );
  }
  return row;
}

export const executionSubject = (row: ExecutionRow): ExecutionSubject => ({
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
});
