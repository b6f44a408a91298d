import { describe, expect, it } from 'vitest';
import { accessRecord } from '../../../src/core/records/access-record.js';
import { approvalRecord } from '../../../src/core/records/approval-record.js';
import { effectRecord } from '../../../src/core/records/effect-record.js';
import { executionRecord } from '../../../src/core/records/execution-record.js';
import { integrationOpRecord } from '../../../src/core/records/integration-op-record.js';
import { redactionRecord } from '../../../src/core/records/redaction-record.js';
import { receiptOf } from '../../../src/core/records/sealed-receipt.js';
import type { Tombstone } from '../../../src/evidence/export-line.js';
import { journalWrite } from '../../../src/evidence/journal-append.js';
import { sha256 } from '../../../src/evidence/node-crypto.js';
import { REDACTION_CAPABILITY } from '../../../src/evidence/tombstone.js';

const AT = '2026-03-01T10:00:00.000Z';
const ids = (prefix: string): string => `${prefix}_fixed`;

describe('journal record builders (core): every journaled write but decisions', () => {
  it('a grant effect names its grant; an observation has none; both are observed and move no money', () => {
    const on = { intentId: 'int_1', taskId: 't', capability: 'c', action: 'a', tier: 2, grantId: 'grt_1' };
    const effect = { status: 'succeeded' as const, effectId: 'ext-9', detail: { rows: 1 } };
    const g = effectRecord(
      { kind: 'grant_effect', tenantId: 'acme', actorId: 'bot', on, effect, at: AT },
      ids,
    );
    expect(g).toMatchObject({
      kind: 'grant_effect',
      receiptId: 'rcp_fixed',
      grantId: 'grt_1',
      tier: 2,
      amountMicros: 0n,
    });
    expect(g.record).toEqual({
      v: 1,
      kind: 'grant_effect',
      receipt_id: 'rcp_fixed',
      intent_id: 'int_1',
      tenant_id: 'acme',
      actor_id: 'bot',
      task_id: 't',
      capability: 'c',
      action: 'a',
      grant_id: 'grt_1',
      outcome: 'succeeded',
      effect: { rows: 1 },
      effect_id: 'ext-9',
      observed: true,
      occurred_at: AT,
    });
    const o = effectRecord(
      { kind: 'observation', tenantId: 'acme', actorId: 'bot', on: { ...on, grantId: '' }, effect, at: AT },
      ids,
    );
    expect(o.grantId).toBe('');
    expect(o.record.grant_id).toBeNull();
  });

  it('an execution outcome is seen by the daemon, names the credential reference, and takes extra fields', () => {
    const r = executionRecord(
      {
        tenantId: 'acme',
        id: 'exe_1',
        intentId: 'int_1',
        taskId: 't',
        step: 's',
        actorId: 'bot',
        capability: 'c',
        action: 'a',
        tier: 1,
        surfaceId: 'stripe',
        operation: 'refunds.create',
        credentialRef: 'env:STRIPE',
      },
      {
        outcome: 'unknown',
        sent: true,
        status: null,
        effectId: null,
        digest: null,
        bytes: 0,
        error: 'interrupted',
        reason: 'stopped',
      },
      { recovered: true },
      AT,
      ids,
    );
    expect(r).toMatchObject({ kind: 'execution', allowed: true, taskId: 't', intentId: 'int_1' });
    expect(r.record).toMatchObject({
      execution_id: 'exe_1',
      credential_ref: 'env:STRIPE',
      observed: false,
      recovered: true,
      effect: { status: null, digest: null, bytes: 0, sent: true, error: 'interrupted' },
    });
  });

  it('an approval record is allowed only when approved', () => {
    const approval = {
      id: 'apr_1',
      intentId: 'int_1',
      taskId: 't',
      step: 's',
      capability: 'c',
      action: 'a',
      tier: 3,
      requesterId: 'bot',
    };
    const base = {
      tenantId: 'acme',
      approval,
      deciderId: 'alice',
      note: null,
      channel: 'cli' as const,
      at: AT,
    };
    const yes = approvalRecord({ ...base, decision: 'approve' }, ids);
    const no = approvalRecord({ ...base, decision: 'deny' }, ids);
    expect(yes.allowed).toBe(true);
    expect(yes.record).toMatchObject({
      outcome: 'approved',
      allowed: true,
      approval_id: 'apr_1',
      requester_id: 'bot',
    });
    expect(no.allowed).toBe(false);
    expect(no.record).toMatchObject({ outcome: 'denied', allowed: false, decision: 'deny' });
    expect(yes.actorId).toBe('alice');
  });

  it('a redaction record carries its tombstone in the record and in the entry preimage', () => {
    const tombstone: Tombstone = {
      from_sequence: 1,
      to_sequence: 2,
      reason: 'retention',
      authorised_by: 'dpo',
      policy_id: 'p',
      record_count: 2,
      receipt_count: 2,
      removed_at: AT,
    };
    let n = 0;
    const r = redactionRecord(
      { tenantId: 'acme', authorisedBy: 'dpo', tombstone, at: AT },
      (p) => `${p}_${++n}`,
    );
    expect(r).toMatchObject({
      kind: 'redaction',
      receiptId: 'rcp_1',
      intentId: 'int_2',
      capability: REDACTION_CAPABILITY,
    });
    expect(r.tombstone).toBe(tombstone);
    expect(r.record).toMatchObject({ tombstone, reason: 'retention', intent_id: 'int_2' });
    expect(journalWrite(undefined, r, AT, sha256).row.tombstone).not.toBeNull();
  });

  it('an integration operation is journaled under its surface, with its own random intent id', () => {
    let n = 0;
    const r = integrationOpRecord(
      {
        tenantId: 'acme',
        surfaceId: 'stripe',
        actorId: 'admin',
        at: AT,
        fields: { action: 'rotate', outcome: 'rotated', reason: 'r', credential_ref: 'env:NEW' },
      },
      (p) => `${p}_${++n}`,
    );
    expect(r).toMatchObject({
      kind: 'integration_op',
      capability: 'integration-ops:stripe',
      intentId: 'iop_2',
    });
    expect(r.record).toMatchObject({ surface_id: 'stripe', action: 'rotate', credential_ref: 'env:NEW' });
  });

  it('an access record is allowed only on approval and names the step', () => {
    const base = {
      tenantId: 'acme',
      actorId: 'm',
      subjectId: 'acr_1',
      capability: 'c',
      tier: 1,
      at: AT,
      fields: {},
    };
    expect(accessRecord({ ...base, step: 'approved' }, ids)).toMatchObject({ allowed: true, kind: 'access' });
    const revoked = accessRecord({ ...base, step: 'entitlement_revoked', fields: { note: 'x' } }, ids);
    expect(revoked.allowed).toBe(false);
    expect(revoked.record).toMatchObject({ action: 'revoke', outcome: 'entitlement_revoked', note: 'x' });
  });

  it('a receipt is the record as appended, with the log position', () => {
    const r = accessRecord(
      {
        tenantId: 'acme',
        actorId: 'm',
        subjectId: 'acr_1',
        capability: 'c',
        tier: 1,
        at: AT,
        fields: {},
        step: 'requested',
      },
      ids,
    );
    const w = journalWrite(undefined, r, AT, sha256);
    expect(receiptOf(r, w.appended)).toEqual({
      receiptId: 'rcp_fixed',
      sequence: 1,
      recordHash: w.row.recordHash,
      occurredAt: AT,
      record: r.record,
    });
  });
});
