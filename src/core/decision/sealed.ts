import type { Micros } from '../money.js';
import type { ConflictCode, NoDeferral, PolicyStep } from './outcome.js';

/** An allowed brokered decision's durable intent to execute, committed with the decision. */
export interface PendingExecution {
  executionId: string;
  surfaceId: string;
  operation: string;
  credentialRef: string;
}

export interface SealedReceipt {
  receiptId: string;
  sequence: number;
  recordHash: string;
  occurredAt: string;
  record: Record<string, unknown>;
}

/** What the decision pipeline answers: a sealed outcome with its receipt, or why none was sealed. */
export type Sealed =
  | NoDeferral
  | { kind: 'conflict'; code: ConflictCode; reason: string; remedy: string; intentId: string; prior: string }
  | {
      kind: 'sealed';
      outcome: 'allowed' | 'refused' | 'deferred';
      intentId: string;
      code?: string;
      reason?: string;
      remedy?: string;
      amountMicros: Micros;
      receipt: SealedReceipt;
      grant?: { grantId: string; expiresAt: string };
      approval?: { approvalId: string; status: string; expiresAt?: string };
      execution?: PendingExecution;
      /**
       * The policy step, where the decision reached it: for what runs after the commit
       * (a shadow policy), never part of a reply.
       */
      policyStep?: PolicyStep;
    };
