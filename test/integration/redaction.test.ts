import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { cjson } from '../../src/evidence/cjson.js';
import { nodeCrypto } from '../../src/evidence/node-crypto.js';
import { verifyExport } from '../../src/evidence/verify/index.js';
import type { RedactionRequest } from '../../src/store/evidence-ports.js';
import { Keyring } from '../../src/store/keyring.js';
import { fixture, type Fixture } from '../helpers/fixture.js';
import { decide, exportText } from '../helpers/real-export.js';
import { capability, register } from '../helpers/registry.js';
import { as } from '../helpers/seed.js';

interface Row {
  sequence: number;
  kind: string;
  receipt_id: string;
  task_id: string | null;
  record: string;
  record_hash: string;
  intent_id: string;
  actor_id: string;
  capability: string;
  tier: number;
  allowed: number;
  grant_id: string;
  amount_micros: number;
  occurred_at: string;
  linked_at: string;
  tombstone: string | null;
  leaf: string;
  chain_hash: string;
}

describe('svc journal redact', () => {
  let f: Fixture;
  const rows = () =>
    f.store.db.prepare("SELECT * FROM journal WHERE tenant_id = 'acme' ORDER BY sequence").all() as Row[];
  const redact = (over: Partial<RedactionRequest> = {}) =>
    f.store.redactions.redact({
      tenantId: 'acme',
      from: 2,
      to: 3,
      reason: 'erasure request 17',
      authorisedBy: 'alice',
      policyId: 'gdpr-art-17',
      at: f.now.value.toISOString(),
      ...over,
    });

  beforeEach(async () => {
    f = await fixture();
    const bot = await f.token('acme', 'bot');
    await register(f.store, 'acme', {
      caps: [capability('acme', 'crm.read')],
      grants: [['bot', 'crm.read']],
      tasks: [{ id: 't1', sponsor: 'alice', budget: 100_000_000n, actors: ['bot'] }],
    });
    for (let i = 1; i <= 6; i++) expect(await decide(f, bot, `s${i}`)).toBe(200);
  });
  afterEach(async () => f.close());

  it('refuses invalid ranges, ranges reaching the record itself, and anyone but a registered human', async () => {
    const before = rows();
    await expect(redact({ from: 0 })).rejects.toMatchObject({ kind: 'invalid_request', field: 'from' });
    await expect(redact({ from: 4, to: 3 })).rejects.toMatchObject({ kind: 'invalid_request', field: 'to' });
    await expect(redact({ from: 5, to: 7 })).rejects.toMatchObject({
      kind: 'invalid_request',
      reason: expect.stringMatching(/reach the redaction record itself \(sequence 7\)/),
    });
    await expect(redact({ reason: '  ' })).rejects.toMatchObject({
      kind: 'invalid_request',
      field: 'reason',
    });
    await expect(redact({ authorisedBy: 'bot' })).rejects.toMatchObject({
      kind: 'invalid_request',
      reason: expect.stringMatching(/bot is an agent/),
    });
    await expect(redact({ authorisedBy: 'zed' })).rejects.toMatchObject({
      kind: 'invalid_request',
      reason: expect.stringMatching(/no actor zed/),
    });
    await expect(redact({ tenantId: 'nobody' })).rejects.toMatchObject({ kind: 'not_found' });
    await expect(redact({ tenantId: 'other', authorisedBy: 'olga', from: 1, to: 1 })).rejects.toMatchObject({
      reason: expect.stringMatching(/empty/),
    });
    expect(rows()).toEqual(before);
  });

  it('journals the record and blanks the range in place, in one step, as evidence-format section 7 says', async () => {
    const before = rows();
    const result = await redact();
    const tombstone = {
      from_sequence: 2,
      to_sequence: 3,
      reason: 'erasure request 17',
      authorised_by: 'alice',
      removed_at: f.now.value.toISOString(),
      record_count: 2,
      policy_id: 'gdpr-art-17',
    };
    expect(result).toEqual({ tombstone, sequence: 7, receiptId: expect.stringMatching(/^rcp_/) });
    const after = rows();
    expect(after).toHaveLength(7);
    for (const seq of [2, 3]) {
      const [was, now] = [before[seq - 1]!, after[seq - 1]!];
      expect(now).toEqual({
        ...was,
        task_id: null,
        record: '{}',
        intent_id: '',
        actor_id: '',
        capability: '',
        tier: 0,
        allowed: 0,
        grant_id: '',
        amount_micros: 0,
        tombstone: cjson(tombstone),
      });
      expect(was.record).toContain('corr-s'); // the private record held the correlation id; now it is gone
    }
    expect(after.filter((r) => r.sequence !== 2 && r.sequence !== 3 && r.sequence < 7)).toEqual(
      before.filter((r) => r.sequence !== 2 && r.sequence !== 3),
    );
    expect(after[6]).toMatchObject({
      kind: 'redaction',
      actor_id: 'alice',
      capability: 'svc.journal.redact',
      allowed: 1,
      tombstone: cjson(tombstone),
    });
    expect(JSON.parse(after[6]!.record)).toMatchObject({ tombstone, reason: 'erasure request 17' });
  });

  it('refuses overlapping ranges and the redaction record itself, and accepts the range next to it', async () => {
    await redact();
    await expect(redact({ from: 3, to: 4 })).rejects.toMatchObject({
      kind: 'conflict',
      reason: expect.stringMatching(/overlaps the redacted range 2\.\.3/),
    });
    await expect(redact({ from: 1, to: 5 })).rejects.toMatchObject({ kind: 'conflict' });
    await expect(redact({ from: 6, to: 7 })).rejects.toMatchObject({
      kind: 'conflict',
      reason: expect.stringMatching(/redaction record of entries 2\.\.3/),
    });
    expect((await redact({ from: 4, to: 5 })).sequence).toBe(8);
  });

  it('receipts of the range show no content; the record is not itself redacted', async () => {
    const before = rows();
    const { receiptId } = await redact();
    const redacted = await as(f, f.adminToken, `/v1/receipts/${before[1]!.receipt_id}`);
    expect(redacted.status).toBe(200);
    expect(redacted.body).toMatchObject({
      redacted: true,
      outcome: 'redacted',
      intent_id: '',
      actor_id: '',
      capability: '',
      task_id: null,
      intent: null,
      reason: null,
      amount_usd: 0,
      grant_id: null,
      record_hash: before[1]!.record_hash,
    });
    const record = await as(f, f.adminToken, `/v1/receipts/${receiptId}`);
    expect(record.body).toMatchObject({
      redacted: false,
      capability: 'svc.journal.redact',
      actor_id: 'alice',
      reason: 'erasure request 17',
    });
    const untouched = await as(f, f.adminToken, `/v1/receipts/${before[3]!.receipt_id}`);
    expect(untouched.body).toMatchObject({ redacted: false, actor_id: 'bot', capability: 'crm.read' });
  });

  it('an export after redactions passes, qualified', async () => {
    await redact();
    await redact({ from: 5, to: 6 });
    const text = await exportText(f.store, new Keyring(f.dir, f.store), 'acme', () => f.now.value);
    const key = new Uint8Array(Buffer.from((await f.store.keys.active('acme'))!.publicKey, 'base64'));
    const r = await verifyExport([text], { publicKeys: [key] }, nodeCrypto);
    expect(r.findings).toEqual([]);
    expect(r.summary).toBe(
      'pass with redactions (4 entries in 2 ranges), pre-anchor: no anchors, timestamps or witnesses',
    );
  });
});
