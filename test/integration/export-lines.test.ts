import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { newId } from '../../src/core/ids.js';
import { exportBody } from '../../src/evidence/export-writer.js';
import { Keyring } from '../../src/store/keyring.js';
import { JournalWriter } from '../../src/store/sqlite/journal.js';
import { fixture, type Fixture } from '../helpers/fixture.js';

/**
 * SQLite's export snapshot builds plain entry lines in its query (journal-export.ts): its
 * text must be byte for byte what exportBody writes from the same snapshot's items, for
 * plain rows and for every row that needs escaping, large numbers or a tombstone.
 */
describe('the SQLite export body as text', () => {
  let f: Fixture;
  beforeEach(async () => {
    f = await fixture();
  });
  afterEach(async () => f.close());

  const strings = [
    'bot',
    'José',
    'a"quoted"',
    'back\\slash',
    'tab\there',
    'new\nline',
    'bell\u0007',
    'del\u007f',
    'robot 🤖',
    'sep\u2028arator',
    '',
    'x'.repeat(300),
  ];
  const amounts = [
    0n,
    1n,
    10n,
    999_999n,
    1_000_000n,
    1_500_000n,
    123_456_789n,
    10n ** 15n - 1n,
    10n ** 15n,
    123_456_789_012_345_678n,
    10n ** 18n,
  ];

  async function appendAll(count: number): Promise<void> {
    const journal = new JournalWriter(f.store.db);
    const at = (i: number) => new Date(Date.UTC(2026, 0, 1) + i * 1000).toISOString();
    f.store.db.transaction(() => {
      for (let i = 0; i < count; i++) {
        const text = strings[i % strings.length]!;
        const allowed = i % 3 !== 0;
        const intentId = newId('int');
        journal.append(
          {
            tenantId: 'acme',
            kind: 'decision',
            receiptId: newId('rcp'),
            taskId: 't1',
            intentId,
            actorId: i % 2 === 0 ? text : 'bot',
            capability: i % 5 === 0 ? `crm.${text}` : 'crm.read',
            tier: i % 4,
            allowed,
            grantId: allowed ? newId('grt') : '',
            amountMicros: amounts[i % amounts.length]!,
            occurredAt: at(i),
            record: { intent_id: intentId, outcome: allowed ? 'allowed' : 'refused' },
          },
          at(i),
        );
      }
    })();
  }

  async function bodies(skipAnchorAt?: number): Promise<{ text: string; items: string; size: number }> {
    const snapshot = f.store.journalExports.snapshot('acme') as ReturnType<
      typeof f.store.journalExports.snapshot
    > & { lines(size: number, opts: { skipAnchorAt?: number }): AsyncIterable<string> };
    try {
      const size = snapshot.size;
      const opts = skipAnchorAt === undefined ? {} : { skipAnchorAt };
      let text = '';
      for await (const page of snapshot.lines(size, opts)) text += page;
      let items = '';
      for await (const page of exportBody(size, snapshot.items(size, opts))) items += page;
      return { text, items, size };
    } finally {
      snapshot.close();
    }
  }

  it('writes the same bytes as the object path, plain rows and odd ones alike', async () => {
    const keyring = new Keyring(f.dir, f.store);
    await appendAll(60);
    await f.store.anchors.signCurrent('acme', await keyring.signer('acme'), '2026-01-02T00:00:00.000Z');
    await appendAll(7_000); // more than a page
    await f.store.redactions.redact({
      tenantId: 'acme',
      from: 10,
      to: 20,
      reason: 'erasure',
      authorisedBy: 'alice',
      at: '2026-01-03T00:00:00.000Z',
    });
    await f.store.anchors.signCurrent('acme', await keyring.signer('acme'), '2026-01-04T00:00:00.000Z');

    const { text, items, size } = await bodies();
    expect(size).toBeGreaterThan(7_060);
    expect(text).toBe(items);
    // Every kind of row is in it: escaped strings, exponent-free large amounts, tombstones, anchors.
    expect(text).toContain('"actor_id":"a\\"quoted\\"');
    expect(text).toContain('"capability":"crm.new\\nline"');
    expect(text).toContain('"amount_usd":999999999.999999,');
    expect(text).toContain('"amount_usd":123456789012.34567,');
    expect(text).toContain('"tombstone":');
    expect(text.match(/"type":"anchor"/g)).toHaveLength(2);

    const skipped = await bodies(size);
    expect(skipped.text).toBe(skipped.items);
    expect(skipped.text.match(/"type":"anchor"/g)).toHaveLength(1);
  });
});
