import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { AnchorSchedule } from '../../src/daemon/anchor-schedule.js';
import { decodeBase64, encodeUtf8 } from '../../src/evidence/encoding.js';
import { nodeCrypto } from '../../src/evidence/node-crypto.js';
import { headPayload } from '../../src/evidence/tree-head.js';
import { rotateKey } from '../../src/provisioning/signing-key.js';
import { Keyring } from '../../src/store/keyring.js';
import { fixture, type Fixture } from '../helpers/fixture.js';
import { capability, register } from '../helpers/registry.js';
import { decide } from '../helpers/real-export.js';

describe('signed tree heads (anchors)', () => {
  let f: Fixture;
  let keyring: Keyring;
  let bot: string;
  let step = 0;
  const decisions = async (n: number) => {
    for (let i = 0; i < n; i++) expect(await decide(f, bot, `s${++step}`)).toBe(200);
  };
  const sign = async () =>
    f.store.anchors.signCurrent('acme', await keyring.signer('acme'), f.now.value.toISOString());

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

  it('refuses to sign an empty log', async () => {
    await expect(sign()).rejects.toMatchObject({ kind: 'conflict', reason: expect.stringMatching(/empty/) });
  });

  it('signs the current root with the active key, and gives back the stored head for a size already signed', async () => {
    await decisions(3);
    const first = await sign();
    expect(first.created).toBe(true);
    const { head, keyId } = first.anchor;
    expect(head).toMatchObject({ index: 3, tree_size: 3, signed_at: f.now.value.toISOString() });
    const active = await f.store.keys.active('acme');
    expect(keyId).toBe(active!.keyId);
    const raw = decodeBase64(active!.publicKey)!;
    expect(nodeCrypto.verifyEd25519(raw, encodeUtf8(headPayload(head)), decodeBase64(head.signature)!)).toBe(
      true,
    );

    f.now.value = new Date(f.now.value.getTime() + 60_000);
    const again = await sign();
    expect(again.created).toBe(false);
    expect(again.anchor.head).toEqual(head); // same signature, same time: no second head at size 3
    expect(await f.store.anchors.list('acme')).toHaveLength(1);
  });

  it('after a key rotation, new heads name the new key and older ones keep theirs', async () => {
    await decisions(2);
    const old = (await sign()).anchor;
    await rotateKey(f.dir, f.store, 'acme', f.now.value);
    await decisions(1);
    const next = (await sign()).anchor;
    expect(next.keyId).not.toBe(old.keyId);
    expect((await f.store.anchors.list('acme')).map((a) => [a.head.tree_size, a.keyId])).toEqual([
      [2, old.keyId],
      [3, next.keyId],
    ]);
  });

  it('a stored head is never changed or deleted, and a journal that no longer matches it is never signed over', async () => {
    await decisions(2);
    await sign();
    expect(() =>
      f.store.db.prepare("UPDATE anchors SET root_hash = ? WHERE tenant_id = 'acme'").run('0'.repeat(64)),
    ).toThrow(/never changed/);
    expect(() => f.store.db.prepare("DELETE FROM anchors WHERE tenant_id = 'acme'").run()).toThrow(
      /never deleted/,
    );
    // Tamper with the stored frontier: the head at this size no longer matches it.
    const state = f.store.db.prepare("SELECT frontier FROM journal_state WHERE tenant_id = 'acme'").get() as {
      frontier: string;
    };
    const frontier = JSON.parse(state.frontier) as { size: number; nodes: string[] };
    frontier.nodes[0] = '0'.repeat(64);
    f.store.db
      .prepare("UPDATE journal_state SET frontier = ? WHERE tenant_id = 'acme'")
      .run(JSON.stringify(frontier));
    await expect(sign()).rejects.toMatchObject({
      kind: 'internal',
      reason: expect.stringMatching(/no longer matches/),
    });
  });

  it('reports each log’s backlog cheaply: size, anchored size and the first uncovered entry’s time', async () => {
    expect(await f.store.anchors.backlog()).toEqual([]);
    await decisions(2);
    const before = await f.store.anchors.backlog();
    expect(before).toEqual([
      { tenantId: 'acme', size: 2, anchoredSize: 0, firstUnanchoredAt: f.now.value.toISOString() },
    ]);
    await sign();
    expect(await f.store.anchors.backlog()).toEqual([
      { tenantId: 'acme', size: 2, anchoredSize: 2, firstUnanchoredAt: null },
    ]);
  });
});

describe('the anchor schedule', () => {
  let f: Fixture;
  let bot: string;
  let step = 0;
  const logged: { level: string; obj: object; msg: string }[] = [];
  const log = {
    info: (obj: object, msg: string) => logged.push({ level: 'info', obj, msg }),
    error: (obj: object, msg: string) => logged.push({ level: 'error', obj, msg }),
  };
  const sizes = async () => (await f.store.anchors.list('acme')).map((a) => a.head.tree_size);
  const decisions = async (n: number) => {
    for (let i = 0; i < n; i++) expect(await decide(f, bot, `s${++step}`)).toBe(200);
  };
  const schedule = (signer?: (t: string) => Promise<never>) => {
    const keyring = new Keyring(f.dir, f.store);
    return new AnchorSchedule(
      {
        anchors: f.store.anchors,
        signer: signer ?? ((t) => keyring.signer(t)),
        clock: () => f.now.value,
        log,
      },
      { intervalMs: 5 * 60_000, entries: 4 },
    );
  };

  beforeEach(async () => {
    logged.length = 0;
    f = await fixture();
    bot = await f.token('acme', 'bot');
    await register(f.store, 'acme', {
      caps: [capability('acme', 'crm.read')],
      grants: [['bot', 'crm.read']],
      tasks: [{ id: 't1', sponsor: 'alice', budget: 100_000_000n, actors: ['bot'] }],
    });
  });
  afterEach(async () => f.close());

  it('anchors once the entry threshold is reached, not per decision and not before', async () => {
    const s = schedule();
    await decisions(3);
    await s.tick();
    expect(await sizes()).toEqual([]);
    await decisions(1);
    await s.tick();
    await s.tick();
    expect(await sizes()).toEqual([4]);
    expect(logged.filter((l) => l.msg === 'anchored the journal')).toHaveLength(1);
  });

  it('anchors when the oldest unanchored entry has waited the interval, and never an unchanged log', async () => {
    const s = schedule();
    await decisions(1);
    f.now.value = new Date(f.now.value.getTime() + 5 * 60_000 - 1);
    await s.tick();
    expect(await sizes()).toEqual([]);
    f.now.value = new Date(f.now.value.getTime() + 1);
    await s.tick();
    expect(await sizes()).toEqual([1]);
    f.now.value = new Date(f.now.value.getTime() + 60 * 60_000);
    await s.tick();
    expect(await sizes()).toEqual([1]);
  });

  it('a clean stop anchors what is pending', async () => {
    const s = schedule();
    s.start();
    await decisions(2);
    await s.stop({ flush: true });
    expect(await sizes()).toEqual([2]);
  });

  it('a tenant whose key cannot be loaded is logged once, and the schedule goes on', async () => {
    const s = schedule(async () => {
      throw new Error('key file unreadable');
    });
    await decisions(4);
    await s.tick();
    await s.tick();
    expect(logged.filter((l) => l.level === 'error')).toHaveLength(1);
    expect(await sizes()).toEqual([]);
  });
});
