import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { newId } from '../../src/core/ids.js';
import { writeAtomically } from '../../src/export/export-file.js';
import { exportLog } from '../../src/export/log-export.js';
import { Keyring } from '../../src/store/keyring.js';
import { JournalWriter } from '../../src/store/sqlite/journal.js';
import { verifyFile } from '../../src/verifier/verify-file.js';
import { fixture, type Fixture } from '../helpers/fixture.js';
import { tmpDir } from '../helpers/tmp.js';

const ENTRIES = 100_000;
const BATCH = 10_000;

/** A decision's journal row as the pipeline writes it, appended directly: the HTTP path is not what this measures. */
function append(journal: JournalWriter, i: number, at: string): void {
  const intentId = newId('int');
  const receiptId = newId('rcp');
  const allowed = i % 7 !== 0;
  journal.append(
    {
      tenantId: 'acme',
      kind: 'decision',
      receiptId,
      taskId: 't1',
      intentId,
      actorId: `agent-${i % 13}`,
      capability: i % 3 === 0 ? 'crm.write' : 'crm.read',
      tier: i % 4,
      allowed,
      grantId: allowed ? newId('grt') : '',
      amountMicros: allowed ? BigInt(1 + (i % 5_000_000)) : 0n,
      occurredAt: at,
      record: {
        v: 1,
        kind: 'decision',
        intent_id: intentId,
        receipt_id: receiptId,
        outcome: allowed ? 'allowed' : 'refused',
        correlation_id: `c-${i}`,
      },
    },
    at,
  );
}

describe('round trip at scale', () => {
  let f: Fixture;
  const tmp = tmpDir('svc-scale-');
  beforeAll(async () => {
    f = await fixture();
  });
  afterAll(async () => {
    await f.close();
    tmp.cleanup();
  });

  it(`${ENTRIES.toLocaleString('en')} decisions' journal rows export and verify, streamed`, async () => {
    const keyring = new Keyring(f.dir, f.store);
    const journal = new JournalWriter(f.store.db);
    const t0 = performance.now();
    for (let start = 1; start <= ENTRIES; start += BATCH) {
      const at = new Date(f.now.value.getTime() + start).toISOString();
      f.store.db.transaction(() => {
        for (let i = start; i < start + BATCH; i++) append(journal, i, at);
      })();
      // The daemon's schedule signs at most one head per 10,000 entries; so does this.
      await f.store.anchors.signCurrent('acme', await keyring.signer('acme'), at);
      if (start === 50_001) {
        await f.store.redactions.redact({
          tenantId: 'acme',
          from: 100,
          to: 1099,
          reason: 'retention',
          authorisedBy: 'alice',
          at,
        });
      }
    }
    const appended = performance.now();

    const file = join(tmp.path, 'acme.jsonl');
    const summary = await writeAtomically(file, (out) =>
      exportLog(f.store, keyring, 'acme', out, { now: () => f.now.value }),
    );
    const exported = performance.now();
    expect(summary).toMatchObject({ entry_count: ENTRIES + 1, anchor_count: 10, pre_anchor: false });

    const key = new Uint8Array(Buffer.from((await f.store.keys.active('acme'))!.publicKey, 'base64'));
    const report = await verifyFile(file, { publicKeys: [key] });
    const verified = performance.now();
    expect(report.findings).toEqual([]);
    expect(report.summary).toBe('pass with redactions (1000 entries in 1 range)');
    expect(report.counts).toMatchObject({ entries: ENTRIES + 1, anchors: 10 });
    console.log(
      `scale: ${ENTRIES} appends ${((appended - t0) / 1000).toFixed(1)} s, export ${((exported - appended) / 1000).toFixed(1)} s, verify ${((verified - exported) / 1000).toFixed(1)} s`,
    );
  }, 180_000);
});
