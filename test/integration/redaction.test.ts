import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { cjson } from '../../src/evidence/cjson.js';
import { nodeCrypto } from '../../src/evidence/node-crypto.js';
import { verifyExport } from '../../src/evidence/verify/index.js';
import type { RedactionRequest } from '../../src/store/evidence-ports.js';
import { Keyring } from '../../src/store/keyring.js';
import { fixture, type Fixture } from '../helpers/fixture.js';
import { addApprover } from '../helpers/approver.js';
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
    f.now.value = new Date(f.now.value.getTime() + 3_600_000); // removed_at differs from the entries' times
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
        record_hash: '0'.repeat(64),
        occurred_at: tombstone.removed_at,
        linked_at: tombstone.removed_at,
        tombstone: cjson(tombstone),
      });
      expect(was.occurred_at).not.toBe(tombstone.removed_at);
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
      record_hash: '0'.repeat(64),
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

  it('erases the copies of private content that operational tables keep; a retry of an erased intent is refused, never run again', async () => {
    await addApprover(f.store, 'bob');
    await register(f.store, 'acme', {
      caps: [
        capability('acme', 'payments.send', {
          actions: ['write'],
          irreversible: true,
          tier: 2,
          costMicros: 10_000_000n,
        }),
      ],
      grants: [['bot', 'payments.send']],
      policy: null,
    });
    const bot = await f.token('acme', 'bot');
    const bob = await f.token('acme', 'bob');
    const post = (url: string, payload: object, token: string) =>
      f.app.inject({ method: 'POST', url, headers: { authorization: `Bearer ${token}` }, payload });
    const pay = {
      tenant_id: 'acme',
      actor_id: 'bot',
      capability: 'payments.send',
      action: 'write',
      task_id: 't1',
      effect_key_step: 'pay-1',
      amount_usd: 25,
      intent: 'pay invoice 4711 to Jane Roe',
      params: { payee_iban: 'DE89370400440532013000' },
      correlation_id: 'corr-pay-secret',
    };
    const deferred = (await post('/v1/action', pay, bot)).json();
    expect(deferred.decision).toBe('deferred');
    const note = 'approved after a call with Jane Roe';
    const decided = await post(
      `/v1/approvals/${deferred.approval.approval_id}/decision`,
      { decision: 'approve', note },
      bob,
    );
    expect(decided.statusCode).toBe(200);
    expect((await post('/v1/action/resume', pay, bot)).json().decision).toBe('allowed');
    const reserved = (await f.store.tasks.get('acme', 't1'))!.reservedMicros;
    const intentOf = (id: string) =>
      f.store.db
        .prepare("SELECT request_digest, request, reason FROM intents WHERE tenant_id = 'acme' AND id = ?")
        .get(id) as Record<string, unknown>;
    const kept = rows()[0]!.intent_id;
    const keptBefore = intentOf(kept);
    const size = rows().length;

    await redact({ from: 7, to: size });

    expect(intentOf(deferred.intent_id)).toEqual({ request_digest: '', request: '{}', reason: null });
    expect(
      f.store.db
        .prepare(
          "SELECT request_digest, request, note FROM approvals WHERE tenant_id = 'acme' AND intent_id = ?",
        )
        .get(deferred.intent_id),
    ).toEqual({ request_digest: '', request: null, note: null });
    expect(
      f.store.db
        .prepare("SELECT state, request_digest FROM effect_keys WHERE tenant_id = 'acme' AND intent_id = ?")
        .get(deferred.intent_id),
    ).toEqual({ state: 'claimed', request_digest: '' });
    expect(intentOf(kept)).toEqual(keptBefore); // outside the range: untouched
    expect(keptBefore.request_digest).toMatch(/^[0-9a-f]{64}$/);

    // Nothing of the erased content is left in any row of any table.
    const tables = (
      f.store.db.prepare("SELECT name FROM sqlite_master WHERE type = 'table'").all() as { name: string }[]
    ).map((t) => t.name);
    const dump = tables
      .map((t) => JSON.stringify(f.store.db.prepare(`SELECT * FROM "${t}"`).all()))
      .join('\n');
    for (const secret of ['Jane Roe', 'corr-pay-secret', 'invoice 4711', 'DE89370400440532013000'])
      expect(dump).not.toContain(secret);
    // ... nor in the bytes of the database files: freed space and the write-ahead log keep old
    // row images unless the redaction scrubs them.
    for (const file of readdirSync(f.dir.root).filter((x) => x.startsWith('svc.db'))) {
      const bytes = readFileSync(join(f.dir.root, file));
      for (const secret of ['Jane Roe', 'corr-pay-secret', 'invoice 4711'])
        expect(bytes.includes(Buffer.from(secret)), `${secret} in ${file}`).toBe(false);
    }

    // The effect key stays claimed: the same request again is refused, nothing is reserved twice.
    const again = await post('/v1/action', pay, bot);
    expect(again.statusCode).toBe(409);
    expect(again.json().code).toBe('duplicate_effect');
    expect((await post('/v1/action/resume', pay, bot)).statusCode).toBe(404);
    expect((await f.store.tasks.get('acme', 't1'))!.reservedMicros).toBe(reserved);
  });
});
