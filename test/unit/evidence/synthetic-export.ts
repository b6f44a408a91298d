/**
 * Exports of any size for streaming tests, made lazily: two passes over entries that are
 * a pure function of their sequence, so neither the builder nor the verifier needs the
 * whole file in memory.
 */
import { chainGenesis, chainNext } from '../../../src/evidence/chain.js';
import { cjson } from '../../../src/evidence/cjson.js';
import { encodeBase64, encodeHex } from '../../../src/evidence/encoding.js';
import { entryLeaf } from '../../../src/evidence/entry.js';
import type { EntryLine } from '../../../src/evidence/export-line.js';
import { keyIdFor, rawPublicKey } from '../../../src/evidence/keys.js';
import { logIdFor } from '../../../src/evidence/log-id.js';
import { MerkleFrontier } from '../../../src/evidence/merkle-frontier.js';
import { ed25519Signer, sha256 } from '../../../src/evidence/node-crypto.js';
import { signTreeHead, unsignedTreeHead } from '../../../src/evidence/tree-head.js';
import { logPrivateKey } from './export-tamper.js';

export interface SyntheticOptions {
  entries: number;
  /** Put an anchor after every n-th entry; 0 for none. */
  anchorEvery: number;
  preAnchor?: boolean;
  tenant?: string;
}

const SIGNED_AT = '2025-03-01T00:00:00.000Z';

function entryBody(tenant: string, sequence: number): Omit<EntryLine, 'chain_hash' | 'leaf'> {
  return {
    type: 'entry',
    tenant_id: tenant,
    sequence,
    record_hash: encodeHex(
      sha256(Uint8Array.of(sequence & 0xff, (sequence >> 8) & 0xff, (sequence >> 16) & 0xff)),
    ),
    intent_id: `int_${sequence}`,
    actor_id: `agent:${sequence % 7}`,
    capability: 'crm.read',
    tier: sequence % 4,
    allowed: sequence % 5 !== 0,
    grant_id: sequence % 5 !== 0 ? `gr_${sequence}` : '',
    amount_usd: (sequence % 1000) / 1_000_000,
    occurred_at: new Date(Date.UTC(2025, 1, 1) + sequence * 1000).toISOString(),
    linked_at: new Date(Date.UTC(2025, 1, 1) + sequence * 1000 + 1).toISOString(),
  };
}

export function* syntheticExport(options: SyntheticOptions): Generator<string> {
  const tenant = options.tenant ?? 'synthetic';
  const logId = logIdFor(tenant, sha256);
  const sign = ed25519Signer(logPrivateKey);
  const raw = rawPublicKey(logPrivateKey);

  const first = new MerkleFrontier(sha256);
  for (let sequence = 1; sequence <= options.entries; sequence++)
    first.append(entryLeaf(entryBody(tenant, sequence), sha256));
  yield (
    cjson({
      type: 'header',
      schema: 'svc.export/v1',
      log_id: logId,
      tenant_id: tenant,
      exported_at: SIGNED_AT,
      entry_count: options.entries,
      head: signTreeHead(unsignedTreeHead(logId, options.entries, first.root(), SIGNED_AT), sign),
      public_key: encodeBase64(raw),
      signing_key_id: keyIdFor(raw),
      signature_algorithm: 'ed25519',
      ...(options.preAnchor === undefined ? {} : { pre_anchor: options.preAnchor }),
    }) + '\n'
  );

  const frontier = new MerkleFrontier(sha256);
  let chain = chainGenesis(logId, sha256);
  for (let sequence = 1; sequence <= options.entries; sequence++) {
    const body = entryBody(tenant, sequence);
    const leaf = entryLeaf(body, sha256);
    chain = chainNext(chain, leaf, sha256);
    frontier.append(leaf);
    yield cjson({ ...body, chain_hash: encodeHex(chain), leaf: encodeHex(leaf) }) + '\n';
    if (options.anchorEvery > 0 && sequence % options.anchorEvery === 0) {
      const head = signTreeHead(unsignedTreeHead(logId, sequence, frontier.root(), SIGNED_AT), sign);
      yield cjson({ type: 'anchor', head, key_id: keyIdFor(raw), algorithm: 'ed25519' }) + '\n';
    }
  }
}
