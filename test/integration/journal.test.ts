import { createHash } from 'node:crypto';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { chainGenesis, chainNext } from '../../src/evidence/chain.js';
import { decodeHex, encodeHex } from '../../src/evidence/encoding.js';
import { entryLeaf } from '../../src/evidence/entry.js';
import { logIdFor } from '../../src/evidence/log-id.js';
import { treeHash } from '../../src/evidence/merkle-tree.js';
import { MerkleFrontier } from '../../src/evidence/merkle-frontier.js';
import { sha256 } from '../../src/evidence/node-crypto.js';
import { fixture, type Fixture } from '../helpers/fixture.js';
import { capability, register } from '../helpers/registry.js';

interface Row {
  sequence: number;
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
  leaf: string;
  chain_hash: string;
}

describe('the journal written by decisions', () => {
  let f: Fixture;
  beforeEach(async () => {
    f = await fixture();
  });
  afterEach(async () => f.close());

  it('links every record into the chain and the Merkle frontier, per tenant, in sequence', async () => {
    const bot = await f.token('acme', 'bot');
    await register(f.store, 'acme', {
      caps: [capability('acme', 'crm.read')],
      grants: [['bot', 'crm.read']],
      tasks: [{ id: 't1', sponsor: 'alice', budget: 5_000_000n }],
    });
    for (let i = 0; i < 9; i++) {
      await f.app.inject({
        method: 'POST',
        url: '/v1/action',
        headers: { 'x-svc-token': bot },
        payload: {
          tenant_id: 'acme',
          actor_id: 'bot',
          capability: i === 4 ? 'x.y' : 'crm.read',
          action: 'read',
          task_id: 't1',
          effect_key_step: `s${i}`,
        },
      });
    }
    const rows = f.store.db
      .prepare("SELECT * FROM journal WHERE tenant_id = 'acme' ORDER BY sequence")
      .all() as Row[];
    expect(rows.map((r) => r.sequence)).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9]);
    expect(rows.filter((r) => r.allowed === 1)).toHaveLength(3); // 5 USD budget, 1.5 USD each
    let chain = chainGenesis(logIdFor('acme', sha256), sha256);
    const leaves: Uint8Array[] = [];
    for (const r of rows) {
      // record_hash commits to the stored private record
      expect(createHash('sha256').update(r.record).digest('hex')).toBe(r.record_hash);
      const leaf = entryLeaf(
        {
          tenant_id: 'acme',
          sequence: r.sequence,
          record_hash: r.record_hash,
          intent_id: r.intent_id,
          actor_id: r.actor_id,
          capability: r.capability,
          tier: r.tier,
          allowed: r.allowed === 1,
          grant_id: r.grant_id,
          amount_usd: r.amount_micros / 1e6,
          occurred_at: r.occurred_at,
          linked_at: r.linked_at,
        },
        sha256,
      );
      expect(encodeHex(leaf)).toBe(r.leaf);
      chain = chainNext(chain, leaf, sha256);
      expect(encodeHex(chain)).toBe(r.chain_hash);
      leaves.push(leaf);
    }
    const state = f.store.db.prepare("SELECT * FROM journal_state WHERE tenant_id = 'acme'").get() as {
      size: number;
      chain_hash: string;
      frontier: string;
    };
    expect(state.size).toBe(9);
    expect(state.chain_hash).toBe(rows[8]!.chain_hash);
    const frontier = MerkleFrontier.fromState(JSON.parse(state.frontier), sha256);
    expect(encodeHex(frontier.root())).toBe(encodeHex(treeHash(leaves, sha256)));
    expect(decodeHex(state.chain_hash)).toHaveLength(32);
    // the other tenant's log is untouched
    expect(f.store.db.prepare("SELECT count(*) AS n FROM journal WHERE tenant_id = 'other'").get()).toEqual({
      n: 0,
    });
  });
});
