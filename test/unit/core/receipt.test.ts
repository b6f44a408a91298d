import { describe, expect, it } from 'vitest';
import { publishReceipt, type JournalRow } from '../../../src/core/receipt.js';

const row: JournalRow = {
  receiptId: 'rcp_1',
  sequence: 7,
  kind: 'decision',
  taskId: 'launch',
  intentId: 'int_1',
  actorId: 'bot',
  capability: 'crm.read',
  allowed: true,
  grantId: 'grt_1',
  amountMicros: 1_500_000n,
  occurredAt: '2026-06-01T12:00:00.000Z',
  linkedAt: '2026-06-01T12:00:00.001Z',
  recordHash: 'ab'.repeat(32),
  leaf: 'ef'.repeat(32),
  record: JSON.stringify({
    action: 'read',
    intent: 'look up a contact',
    outcome: 'allowed',
    effect: { status: 'succeeded' },
    effect_id: 'eff-9',
    correlation_id: 'corr-secret',
    trace_id: 'trace-secret',
    request_digest: 'cd'.repeat(32),
    credential: 'never',
  }),
  tombstone: null,
};

describe('publishReceipt', () => {
  it('publishes intent and effect fields by name and nothing private', () => {
    const r = publishReceipt(row);
    expect(r).toMatchObject({
      action: 'read',
      intent: 'look up a contact',
      outcome: 'allowed',
      effect: { status: 'succeeded' },
      effect_id: 'eff-9',
      amount_usd: 1.5,
      grant_id: 'grt_1',
      linked_at: '2026-06-01T12:00:00.001Z',
      leaf: 'ef'.repeat(32),
      redacted: false,
    });
    const text = JSON.stringify(r);
    for (const secret of [
      'corr-secret',
      'trace-secret',
      'cd'.repeat(32),
      'never',
      'correlation_id',
      'trace_id',
      'request_digest',
    ])
      expect(text).not.toContain(secret);
  });

  it('a redacted row shows no record content; the redaction record itself is not redacted', () => {
    const tombstone = JSON.stringify({ from_sequence: 5, to_sequence: 7, reason: 'retention' });
    expect(publishReceipt({ ...row, tombstone: '{}' }).redacted).toBe(true);
    expect(publishReceipt({ ...row, tombstone: 'not json' }).redacted).toBe(true);
    expect(publishReceipt({ ...row, sequence: 8, kind: 'redaction', tombstone })).toMatchObject({
      redacted: false,
      action: 'read',
    });
    const r = publishReceipt({ ...row, tombstone });
    expect(r).toMatchObject({
      redacted: true,
      outcome: 'redacted',
      action: null,
      intent: null,
      effect: null,
      effect_id: null,
    });
    expect(r.record_hash).toBe(row.recordHash);
  });
});
