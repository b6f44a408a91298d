import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { admits } from '../../src/core/constraints.js';
import { PolicyCache } from '../../src/daemon/policy-cache.js';
import { toDecisionRequest } from '../../src/api/decision.js';
import { chainGenesis, chainNext } from '../../src/evidence/chain.js';
import { encodeHex } from '../../src/evidence/encoding.js';
import { logIdFor } from '../../src/evidence/log-id.js';
import { MerkleFrontier } from '../../src/evidence/merkle-frontier.js';
import { treeHash } from '../../src/evidence/merkle-tree.js';
import { sha256 } from '../../src/evidence/node-crypto.js';
import type { JournalAppend } from '../../src/evidence/journal-append.js';
import { JournalWriter } from '../../src/store/sqlite/journal.js';
import { SqliteStore } from '../../src/store/sqlite/store.js';
import { fixture, type Fixture } from '../helpers/fixture.js';
import { capability, register } from '../helpers/registry.js';

/**
 * What a decision holds between decisions (the log state its journal writer appended last, the
 * capability rows of a registry version) is never what the next decision acts on once another
 * connection changed the store: each case changes it through a second store on the same file
 * and looks at the very next decision of the first.
 */
describe('decision caches: a change from another connection is seen by the very next decision', () => {
  let f: Fixture;
  let other: SqliteStore;
  let bot: string;
  let step = 0;

  beforeEach(async () => {
    f = await fixture();
    other = SqliteStore.open(f.dir.database);
    bot = await f.token('acme', 'bot');
    await register(f.store, 'acme', {
      caps: [capability('acme', 'crm.read', { tier: 1 })],
      grants: [['bot', 'crm.read']],
      tasks: [{ id: 't1', sponsor: 'alice', budget: 1_000_000_000n }],
    });
  });
  afterEach(async () => {
    await other.close();
    await f.close();
  });

  const body = () => ({
    tenant_id: 'acme',
    actor_id: 'bot',
    capability: 'crm.read',
    action: 'read',
    task_id: 't1',
    effect_key_step: `s${step++}`,
  });

  /** A decision of the first store, through the daemon. */
  async function act(): Promise<{ decision: string; receipt: { sequence: number } }> {
    const res = await f.app.inject({
      method: 'POST',
      url: '/v1/action',
      headers: { 'x-svc-token': bot },
      payload: body(),
    });
    return res.json();
  }

  /** A decision of the second store (another daemon on the same file); its receipt's sequence. */
  async function actOther(): Promise<number> {
    const actor = (await other.actors.get('acme', 'bot'))!;
    const sealed = await other.decisions.decide(toDecisionRequest('action', body()), actor, 'new', {
      policy: new PolicyCache(),
      constraints: admits,
    });
    if (sealed.kind !== 'sealed') throw new Error(`not sealed: ${sealed.kind}`);
    return sealed.receipt.sequence;
  }

  function journalIsOneChain(tenantId: string): number {
    const rows = f.store.db
      .prepare('SELECT sequence, leaf, chain_hash FROM journal WHERE tenant_id = ? ORDER BY sequence')
      .all(tenantId) as { sequence: number; leaf: string; chain_hash: string }[];
    let chain = chainGenesis(logIdFor(tenantId, sha256), sha256);
    const leaves: Uint8Array[] = [];
    rows.forEach((r, i) => {
      expect(r.sequence).toBe(i + 1);
      const leaf = Uint8Array.from(Buffer.from(r.leaf, 'hex'));
      chain = chainNext(chain, leaf, sha256);
      expect(r.chain_hash).toBe(encodeHex(chain));
      leaves.push(leaf);
    });
    const state = f.store.db
      .prepare('SELECT size, chain_hash, frontier FROM journal_state WHERE tenant_id = ?')
      .get(tenantId) as { size: number; chain_hash: string; frontier: string };
    expect(state.size).toBe(rows.length);
    expect(state.chain_hash).toBe(encodeHex(chain));
    const root = MerkleFrontier.fromState(JSON.parse(state.frontier), sha256).root();
    expect(encodeHex(root)).toBe(encodeHex(treeHash(leaves, sha256)));
    return rows.length;
  }

  it('appends after entries another connection appended, in one chain and one tree', async () => {
    expect((await act()).receipt.sequence).toBe(1);
    expect((await act()).receipt.sequence).toBe(2);
    expect(await actOther()).toBe(3);
    expect((await act()).receipt.sequence).toBe(4);
    for (let i = 0; i < 3; i++) await actOther();
    expect((await act()).receipt.sequence).toBe(8);
    expect(journalIsOneChain('acme')).toBe(8);
  });

  it('decides on a capability changed by another connection under the next registry version', async () => {
    expect((await act()).decision).toBe('allowed');
    // Tier 9 needs a human approval: the very next decision defers.
    await other.capabilities.put(
      capability('acme', 'crm.read', { tier: 9, updatedAt: '2026-06-01T12:01:00.000Z' }),
    );
    expect((await act()).decision).toBe('deferred');
    await other.capabilities.put(
      capability('acme', 'crm.read', { tier: 1, updatedAt: '2026-06-01T12:02:00.000Z' }),
    );
    expect((await act()).decision).toBe('allowed');
  });

  it('reads the stored log state again when the append it holds was rolled back', async () => {
    expect((await act()).receipt.sequence).toBe(1);
    const writer = new JournalWriter(f.store.db);
    const record = (n: number): JournalAppend => ({
      tenantId: 'acme',
      kind: 'observation',
      receiptId: `rcp_rolled_back_${n}`,
      taskId: 't1',
      intentId: `int_rolled_back_${n}`,
      actorId: 'bot',
      capability: 'crm.read',
      tier: 1,
      allowed: true,
      grantId: '',
      amountMicros: 0n,
      occurredAt: '2026-06-01T12:00:00.000Z',
      record: { intent_id: `int_rolled_back_${n}`, n },
    });
    expect(() => writer.append(record(0), '2026-06-01T12:00:00.000Z')).toThrow(/inside/);
    expect(() =>
      f.store.db.transaction(() => {
        expect(writer.append(record(1), '2026-06-01T12:00:00.000Z').sequence).toBe(2);
        throw new Error('the state change failed after its record was appended');
      })(),
    ).toThrow(/failed after/);
    // The writer held sequence 2; the store holds 1 entry. Both writers continue from the store.
    const again = f.store.db.transaction(() => writer.append(record(2), '2026-06-01T12:00:00.000Z'))();
    expect(again.sequence).toBe(2);
    expect((await act()).receipt.sequence).toBe(3);
    expect(journalIsOneChain('acme')).toBe(3);
  });
});
