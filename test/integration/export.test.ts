import { Writable } from 'node:stream';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { cjson } from '../../src/evidence/cjson.js';
import { nodeCrypto } from '../../src/evidence/node-crypto.js';
import { validateExportLine } from '../../src/evidence/schema-validator.js';
import { verifyExport } from '../../src/evidence/verify/index.js';
import type { JournalExports } from '../../src/store/evidence-ports.js';
import { exportLog } from '../../src/export/log-export.js';
import { Keyring } from '../../src/store/keyring.js';
import { JournalWriter, type JournalAppend } from '../../src/store/sqlite/journal.js';
import { newId } from '../../src/core/ids.js';
import { fixture, type Fixture } from '../helpers/fixture.js';
import { decide, exportText, realExport } from '../helpers/real-export.js';
import { capability, register } from '../helpers/registry.js';

function lateRecord(at: string): JournalAppend {
  const intentId = newId('int');
  return {
    tenantId: 'acme',
    kind: 'decision',
    receiptId: newId('rcp'),
    taskId: 't1',
    intentId,
    actorId: 'bot',
    capability: 'crm.read',
    tier: 1,
    allowed: false,
    grantId: '',
    amountMicros: 0n,
    occurredAt: at,
    record: { intent_id: intentId, outcome: 'refused' },
  };
}

const lines = (text: string) =>
  text
    .slice(0, -1)
    .split('\n')
    .map((l) => JSON.parse(l) as Record<string, unknown>);

describe('svc export on a real log', () => {
  it('writes every line in canonical form and valid against the published schema', async () => {
    const real = await realExport();
    try {
      const text = real.text;
      expect(text.endsWith('\n')).toBe(true);
      for (const line of text.slice(0, -1).split('\n')) {
        expect(cjson(JSON.parse(line))).toBe(line);
        expect(validateExportLine(JSON.parse(line)).errors).toEqual([]);
      }
      const parsed = lines(text);
      expect(parsed[0]).toMatchObject({ type: 'header', tenant_id: 'acme', entry_count: 14 });
      expect(parsed[0]).not.toHaveProperty('pre_anchor');
      // Anchors right after the entry their size names, each naming the key that signed it.
      const anchorKeys = parsed
        .filter((l) => l.type === 'anchor')
        .map((l) => [(l.head as { tree_size: number }).tree_size, l.key_id]);
      const keys = await real.f.store.keys.list('acme');
      const retired = keys.find((k) => k.status === 'retired')!.keyId;
      const active = keys.find((k) => k.status === 'active')!.keyId;
      expect(anchorKeys).toEqual([
        [5, retired],
        [10, active],
        [13, active],
      ]);
      expect(parsed[0]!.signing_key_id).toBe(active);
      // The redacted range is blanked in place; the record that redacted it carries the same tombstone.
      const tombstones = parsed.filter((l) => l.tombstone !== undefined);
      expect(tombstones.map((l) => l.sequence)).toEqual([2, 3, 4, 11]);
      expect(new Set(tombstones.map((l) => cjson(l.tombstone)))).toHaveProperty('size', 1);
      expect(tombstones[3]).toMatchObject({
        capability: 'svc.journal.redact',
        allowed: true,
        actor_id: 'alice',
      });
      expect(tombstones[0]).toMatchObject({
        intent_id: '',
        actor_id: '',
        capability: '',
        grant_id: '',
        tier: 0,
        allowed: false,
        amount_usd: 0,
      });
    } finally {
      await real.f.close();
    }
  });
});

describe('an export after a key rotation', () => {
  it('names every key its heads need, and a verifier short of one names the missing key id', async () => {
    const real = await realExport();
    try {
      const keyring = new Keyring(real.f.dir, real.f.store);
      const out = new Writable({ write: (_chunk, _encoding, done) => done() });
      const summary = await exportLog(real.f.store, keyring, 'acme', out, { now: () => real.f.now.value });
      const keys = await real.f.store.keys.list('acme');
      const retired = keys.find((k) => k.status === 'retired')!;
      const active = keys.find((k) => k.status === 'active')!;
      expect(summary.key_id).toBe(active.keyId);
      expect(summary.key_ids).toEqual([retired.keyId, active.keyId]);

      const raw = (k: { publicKey: string }) => new Uint8Array(Buffer.from(k.publicKey, 'base64'));
      const short = await verifyExport([Buffer.from(real.text)], { publicKeys: [raw(active)] }, nodeCrypto);
      expect(short.result).toBe('fail');
      expect(short.missingKeyIds).toEqual([retired.keyId]);
      expect(short.findings).toContainEqual({
        code: 'key_id_mismatch',
        line: expect.any(Number),
        message: expect.stringContaining(`anchor key_id ${retired.keyId} names no trusted key`),
      });
      expect(short.findings.find((x) => x.code === 'signature_invalid')?.message).toContain(
        `it names ${retired.keyId}, which is not among the trusted keys`,
      );
      const both = await verifyExport(
        [Buffer.from(real.text)],
        { publicKeys: [raw(active), raw(retired)] },
        nodeCrypto,
      );
      expect(both).toMatchObject({ result: 'pass', missingKeyIds: [] });
    } finally {
      await real.f.close();
    }
  });
});

describe('svc export', () => {
  let f: Fixture;
  let keyring: Keyring;
  let bot: string;
  let step = 0;
  const now = () => f.now.value;
  const key = async () =>
    new Uint8Array(Buffer.from((await f.store.keys.active('acme'))!.publicKey, 'base64'));

  beforeEach(async () => {
    f = await fixture();
    keyring = new Keyring(f.dir, f.store);
    bot = await f.token('acme', 'bot');
    await register(f.store, 'acme', {
      caps: [capability('acme', 'crm.read')],
      grants: [['bot', 'crm.read']],
      tasks: [{ id: 't1', sponsor: 'alice', budget: 100_000_000n, actors: ['bot'] }],
    });
  });
  afterEach(async () => f.close());

  it('refuses an unknown tenant and an empty log', async () => {
    await expect(exportText(f.store, keyring, 'nobody', now)).rejects.toMatchObject({ kind: 'not_found' });
    await expect(exportText(f.store, keyring, 'acme', now)).rejects.toMatchObject({ kind: 'conflict' });
  });

  it('marks pre_anchor only while no anchor exists; the head it signs is stored, so a later export anchors on it', async () => {
    for (let i = 0; i < 3; i++) await decide(f, bot, `s${++step}`);
    const first = await exportText(f.store, keyring, 'acme', now);
    expect(lines(first)[0]).toMatchObject({ pre_anchor: true, entry_count: 3 });
    expect(lines(first).filter((l) => l.type === 'anchor')).toHaveLength(0);
    const r = await verifyExport([first], { publicKeys: [await key()] }, nodeCrypto);
    expect(r.summary).toBe('pass, pre-anchor: no anchors, timestamps or witnesses');
    const strict = await verifyExport(
      [first],
      { publicKeys: [await key()], requireAnchors: true },
      nodeCrypto,
    );
    expect(strict.findings.map((x) => x.code)).toEqual(['anchors_required']);

    f.now.value = new Date(f.now.value.getTime() + 60_000);
    const second = await exportText(f.store, keyring, 'acme', now);
    const [header, ...rest] = lines(second);
    expect(header).not.toHaveProperty('pre_anchor');
    // Same size, so the same stored head: signed at the first export, never a second head at 3.
    expect(header!.head).toEqual(lines(first)[0]!.head);
    expect(rest.at(-1)).toMatchObject({ type: 'anchor', head: header!.head });
    expect((await verifyExport([second], { publicKeys: [await key()] }, nodeCrypto)).summary).toBe('pass');
  });

  it('covers exactly the entries under its head while the daemon keeps appending', async () => {
    for (let i = 0; i < 4; i++) await decide(f, bot, `s${++step}`);
    const exports = f.store.journalExports;
    // Entries appended between the head and the snapshot are beyond the head: left out.
    const journal = new JournalWriter(f.store.db);
    const racing: JournalExports = {
      snapshot: (tenant) => {
        f.store.db.transaction(() => journal.append(lateRecord(now().toISOString()), now().toISOString()))();
        return exports.snapshot(tenant);
      },
    };
    Object.defineProperty(f.store, 'journalExports', { value: racing });
    const text = await exportText(f.store, keyring, 'acme', now);
    expect(lines(text)[0]).toMatchObject({ entry_count: 4 });
    expect(lines(text).filter((l) => l.type === 'entry')).toHaveLength(4);
    expect(
      (
        f.store.db.prepare("SELECT size FROM journal_state WHERE tenant_id = 'acme'").get() as {
          size: number;
        }
      ).size,
    ).toBe(5);
    expect((await verifyExport([text], { publicKeys: [await key()] }, nodeCrypto)).result).toBe('pass');
  });

  it('starts over when a redaction lands between its head and its snapshot', async () => {
    for (let i = 0; i < 4; i++) await decide(f, bot, `s${++step}`);
    const exports = f.store.journalExports;
    let opened = 0;
    const racing: JournalExports = {
      snapshot: (tenant) => {
        if (opened++ === 0) {
          // A redaction of entries under the head whose record lands after it (it commits synchronously).
          void f.store.redactions.redact({
            tenantId: 'acme',
            from: 1,
            to: 2,
            reason: 'erasure',
            authorisedBy: 'alice',
            at: now().toISOString(),
          });
        }
        return exports.snapshot(tenant);
      },
    };
    Object.defineProperty(f.store, 'journalExports', { value: racing });
    const text = await exportText(f.store, keyring, 'acme', now);
    expect(opened).toBe(2);
    expect(lines(text)[0]).toMatchObject({ entry_count: 5 });
    const r = await verifyExport([text], { publicKeys: [await key()] }, nodeCrypto);
    // The first attempt's head (at 4) was stored like any head, so it is an anchor now.
    expect(r.summary).toBe('pass with redactions (2 entries in 1 range)');
    expect(
      lines(text)
        .filter((l) => l.type === 'anchor')
        .map((l) => (l.head as { tree_size: number }).tree_size),
    ).toEqual([4]);
  });
});
