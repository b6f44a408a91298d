import { execFileSync } from 'node:child_process';
import { Validator } from '@seriousme/openapi-schema-validator';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { attestationFailedData } from '../../src/core/notify/attestation-failure.js';
import { EVENT_TYPES, type EventType } from '../../src/core/notify/event.js';
import {
  accessRequestData,
  approvalData,
  approvalDecidedData,
  approvalReminderData,
  budgetThresholdData,
  cardDecidedData,
  entitlementRevokedData,
  refusedData,
  surfaceRevokedData,
  type ApprovalEventFacts,
} from '../../src/core/notify/payloads.js';
import { BIN } from '../helpers/cli.js';
import { fixture, type Fixture } from '../helpers/fixture.js';
import { OpenApiConformance } from '../helpers/openapi-conformance.js';

const AT = '2026-11-27T03:00:00.000Z';
const approval: ApprovalEventFacts = {
  id: 'apr_1',
  intentId: 'int_1',
  taskId: 't1',
  step: 's1',
  capability: 'payments.send',
  action: 'write',
  requesterId: 'bot',
  amountMicros: 40_000_000n,
  requestDigest: 'ab'.repeat(32),
  intent: 'refund order 7',
  expiresAt: AT,
  createdAt: AT,
};
const decided = { decidedBy: 'alice', decidedAt: AT, receiptId: 'rcp_1' };

/** One sample of every type, each built by the builder the core use case calls. */
const SAMPLES: Record<EventType, Record<string, unknown>> = {
  'approval.requested': approvalData(approval),
  'approval.decided': approvalDecidedData(approval, { ...decided, status: 'approved', channel: 'console' }),
  'approval.expired': { ...approvalData(approval), status: 'expired' },
  'approval.reminder': approvalReminderData(approval, { pendingSeconds: 900, escalated: true }),
  'access_request.created': accessRequestData({
    id: 'ar_1',
    requesterId: 'bot',
    capability: 'crm.read',
    durationSeconds: 3600,
    deciders: ['alice'],
    createdAt: AT,
    receiptId: 'rcp_2',
  }),
  'manager_card.decided': cardDecidedData({
    cardId: 'card_1',
    accessRequestId: 'ar_1',
    requesterId: 'bot',
    capability: 'crm.read',
    status: 'approved',
    grantedSeconds: 3600,
    entitlementId: 'ent_1',
    entitlementExpiresAt: AT,
    ...decided,
  }),
  'entitlement.revoked': entitlementRevokedData({
    id: 'ent_1',
    holderId: 'bot',
    capability: 'crm.read',
    accessRequestId: null,
    expiresAt: AT,
    revokedBy: 'alice',
    revokedAt: AT,
    receiptId: 'rcp_3',
  }),
  'budget.threshold': budgetThresholdData({
    taskId: 't1',
    percent: 80,
    budgetMicros: 100_000_000n,
    reservedMicros: 80_000_000n,
    intentId: 'int_2',
    at: AT,
  }),
  'decision.refused': refusedData({
    receiptId: 'rcp_4',
    intentId: 'int_3',
    taskId: 't1',
    step: 's2',
    actorId: 'bot',
    capability: 'payments.send',
    action: 'write',
    code: 'budget_exceeded',
    reason: 'over budget',
    amountMicros: 5_000_000n,
    requestDigest: 'cd'.repeat(32),
    at: AT,
  }),
  'attestation.failed': attestationFailedData({
    treeSize: 12,
    attestation: 'witness',
    witnessId: 'w1',
    reason: 'refused',
  }),
  'integration.surface_revoked': surfaceRevokedData({
    surfaceId: 'pay',
    revokedBy: 'alice',
    revokedAt: AT,
    receiptId: 'rcp_5',
  }),
};

const envelope = (type: EventType, data: Record<string, unknown>) => ({
  type,
  timestamp: AT,
  data: { tenant_id: 'acme', ...data },
});

interface WebhookOp {
  operationId: string;
  parameters: { name: string; in: string; required: boolean }[];
  requestBody: { content: Record<string, unknown> };
  responses: Record<string, unknown>;
}

describe('OpenAPI webhooks: every event type the daemon sends, as a receiver gets it', () => {
  let f: Fixture;
  let doc: { webhooks: Record<string, { post: WebhookOp }> };
  let checker: OpenApiConformance;
  beforeAll(async () => {
    f = await fixture();
    doc = (await f.app.inject({ url: '/v1/openapi.json', headers: { 'x-svc-token': f.adminToken } })).json();
    checker = new OpenApiConformance(doc);
  });
  afterAll(async () => f.close());

  it('has one entry per event type, each a signed POST with the Standard Webhooks headers and the answers that matter', async () => {
    expect(Object.keys(doc.webhooks).sort()).toEqual([...EVENT_TYPES].sort());
    for (const type of EVENT_TYPES) {
      const op = doc.webhooks[type]!.post;
      expect(op.parameters.map((p) => [p.name, p.in, p.required])).toEqual([
        ['webhook-id', 'header', true],
        ['webhook-timestamp', 'header', true],
        ['webhook-signature', 'header', true],
      ]);
      expect(Object.keys(op.requestBody.content)).toEqual(['application/json']);
      expect(Object.keys(op.responses).sort()).toEqual(['2XX', '410', 'default']);
    }
    expect(new Set(EVENT_TYPES.map((t) => doc.webhooks[t]!.post.operationId)).size).toBe(EVENT_TYPES.length);
    const result = await new Validator().validate(doc);
    expect(result.errors ?? []).toEqual([]);
  });

  it('describes exactly what the payload builders produce: each sample validates, a changed one does not', () => {
    for (const type of EVENT_TYPES) {
      const sample = envelope(type, SAMPLES[type]);
      expect(checker.checkWebhook(sample), type).toBeUndefined();
      // An unannounced field, a missing one, or another type's envelope is refused.
      expect(checker.checkWebhook({ ...sample, data: { ...sample.data, secret: 'x' } }), type).toMatch(
        /additional/,
      );
      const { tenant_id: _t, ...withoutTenant } = sample.data;
      expect(checker.checkWebhook({ ...sample, data: withoutTenant }), type).toMatch(/tenant_id/);
      const other = EVENT_TYPES.find((t) => t !== type)!;
      expect(checker.checkWebhook({ ...sample, type: other }), type).toBeDefined();
    }
  });

  it('`svc openapi` prints the same webhooks', () => {
    const printed = JSON.parse(execFileSync(process.execPath, [BIN, 'openapi'], { encoding: 'utf8' }));
    expect(printed.webhooks).toEqual(doc.webhooks);
  });
});
