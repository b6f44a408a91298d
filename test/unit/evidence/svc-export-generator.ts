/**
 * Builds test/vectors/svc-export/export.jsonl: a small export a daemon could have written,
 * made with the evidence primitives and fixed inputs only, so it is byte-for-byte stable
 * (Ed25519 signatures are deterministic). svc-export-vector.test.ts checks the committed
 * file against this and rewrites it when SVC_WRITE_VECTORS=1.
 */
import { createPrivateKey, type KeyObject } from 'node:crypto';
import { chainGenesis, chainNext } from '../../../src/evidence/chain.js';
import { cjson } from '../../../src/evidence/cjson.js';
import { encodeBase64, encodeHex, encodeUtf8 } from '../../../src/evidence/encoding.js';
import { entryLeaf } from '../../../src/evidence/entry.js';
import type { AnchorLine, EntryLine, HeaderLine, Tombstone } from '../../../src/evidence/export-line.js';
import { keyIdFor, rawPublicKey } from '../../../src/evidence/keys.js';
import { logIdFor } from '../../../src/evidence/log-id.js';
import { MerkleFrontier } from '../../../src/evidence/merkle-frontier.js';
import { ed25519Signer, sha256 } from '../../../src/evidence/node-crypto.js';
import { REDACTION_CAPABILITY, redactEntry } from '../../../src/evidence/tombstone.js';
import {
  headPayload,
  signTreeHead,
  unsignedTreeHead,
  type TreeHead,
} from '../../../src/evidence/tree-head.js';

/** RFC 8032 §7.1 TEST 1 secret key: public, for test vectors only. */
export const VECTOR_LOG_SEED = '9d61b19deffd5a60ba844af492ec2cc44449c5697b326919703bac031cae7f60';
/** RFC 8032 §7.1 TEST 2 secret key, standing in for a witness. */
export const VECTOR_WITNESS_SEED = '4ccd089b28ff96da9db6c346ec114e0f5b8a319f35aba624da8cf6ed4fb8a6fb';
export const VECTOR_TENANT = 'acme-demo';

const PKCS8_ED25519_PREFIX = '302e020100300506032b657004220420';

export function privateKeyFromSeed(seedHex: string): KeyObject {
  return createPrivateKey({
    key: Buffer.from(PKCS8_ED25519_PREFIX + seedHex, 'hex'),
    format: 'der',
    type: 'pkcs8',
  });
}

type Content = Pick<
  EntryLine,
  'intent_id' | 'actor_id' | 'capability' | 'tier' | 'allowed' | 'grant_id' | 'amount_usd'
>;

export const CONTENT: Content[] = [
  {
    intent_id: 'int_5f0c1d2e3a4b49c8a1e2f3a4b5c6d7e8',
    actor_id: 'agent:billing-bot',
    capability: 'crm.contacts.read',
    tier: 1,
    allowed: true,
    grant_id: 'gr_7c1e0a9b2d3f4e5a',
    amount_usd: 0.0125,
  },
  {
    intent_id: 'int_0a1b2c3d4e5f40718293a4b5c6d7e8f9',
    actor_id: 'agent:billing-bot',
    capability: 'payments.refund',
    tier: 3,
    allowed: false,
    grant_id: '',
    amount_usd: 250,
  },
  {
    intent_id: 'int_9e8d7c6b5a4f43e2d1c0b9a8f7e6d5c4',
    actor_id: 'agent:support-bot',
    capability: 'email.send',
    tier: 2,
    allowed: true,
    grant_id: 'gr_1a2b3c4d5e6f7a8b',
    amount_usd: 0.002,
  },
  {
    intent_id: 'int_3c4d5e6f7a8b49c0d1e2f3a4b5c6d7e8',
    actor_id: 'agent:support-bot',
    capability: 'crm.contacts.update',
    tier: 2,
    allowed: true,
    grant_id: 'gr_9f8e7d6c5b4a3928',
    amount_usd: 0,
  },
  {
    intent_id: 'int_6b7c8d9e0f1a42b3c4d5e6f7a8b9c0d1',
    actor_id: 'agent:billing-bot',
    capability: 'invoices.read',
    tier: 1,
    allowed: true,
    grant_id: 'gr_0f1e2d3c4b5a6978',
    amount_usd: 0.000001,
  },
  {
    intent_id: 'int_d1c2b3a4958647e3a2b1c0d9e8f7a6b5',
    actor_id: 'user:dpo@acme.example',
    capability: REDACTION_CAPABILITY,
    tier: 3,
    allowed: true,
    grant_id: '',
    amount_usd: 0,
  },
  {
    intent_id: 'int_8a9b0c1d2e3f4a5b6c7d8e9f0a1b2c3d',
    actor_id: 'agent:billing-bot',
    capability: 'invoices.read',
    tier: 1,
    allowed: true,
    grant_id: 'gr_5a6b7c8d9e0f1a2b',
    amount_usd: 1.5,
  },
];

export const VECTOR_TOMBSTONE: Tombstone = {
  from_sequence: 3,
  to_sequence: 4,
  reason: 'retention: support mail kept 30 days',
  authorised_by: 'user:dpo@acme.example',
  policy_id: 'retention-support-30d',
  record_count: 2,
  receipt_count: 2,
  removed_at: '2025-01-15T09:03:00.000Z',
};

const at = (second: number): string => new Date(Date.UTC(2025, 0, 15, 9, 0, 0) + second * 1000).toISOString();

export interface SvcExportVector {
  jsonl: string;
  publicKeyBase64: string;
}

export function buildSvcExportVector(): SvcExportVector {
  const logKey = privateKeyFromSeed(VECTOR_LOG_SEED);
  const witnessKey = privateKeyFromSeed(VECTOR_WITNESS_SEED);
  const sign = ed25519Signer(logKey);
  const publicKey = rawPublicKey(logKey);
  const keyId = keyIdFor(publicKey);
  const logId = logIdFor(VECTOR_TENANT, sha256);
  const frontier = new MerkleFrontier(sha256);
  let chain = chainGenesis(logId, sha256);

  const entries: EntryLine[] = CONTENT.map((content, i) => {
    const sequence = i + 1;
    const occurredAt = at(sequence * 30);
    // The private journal record: what record_hash commits to without publishing it.
    const record = {
      ...content,
      sequence,
      correlation_id: `corr-${sequence}`,
      reason: 'policy decision',
      effect: null,
      occurred_at: occurredAt,
    };
    const body: Omit<EntryLine, 'chain_hash' | 'leaf'> = {
      type: 'entry',
      tenant_id: VECTOR_TENANT,
      sequence,
      record_hash: encodeHex(sha256(encodeUtf8(cjson(record)))),
      ...content,
      occurred_at: occurredAt,
      linked_at: at(sequence * 30 + 1),
      ...(content.capability === REDACTION_CAPABILITY ? { tombstone: VECTOR_TOMBSTONE } : {}),
    };
    const leaf = entryLeaf(body, sha256);
    chain = chainNext(chain, leaf, sha256);
    frontier.append(leaf);
    return { ...body, chain_hash: encodeHex(chain), leaf: encodeHex(leaf) };
  });

  // Anchors are signed as the log grows, before retention redacts entries 3 and 4.
  const roots = new Map<number, Uint8Array>();
  const replay = new MerkleFrontier(sha256);
  for (const entry of entries) {
    replay.append(Buffer.from(entry.leaf, 'hex'));
    roots.set(entry.sequence, replay.root());
  }
  const anchorHead = (size: number, second: number): TreeHead =>
    signTreeHead(unsignedTreeHead(logId, size, roots.get(size)!, at(second)), sign);

  const firstAnchor: AnchorLine = {
    type: 'anchor',
    head: anchorHead(3, 100),
    key_id: keyId,
    algorithm: 'ed25519',
  };
  const secondHead = anchorHead(6, 400);
  const cosignedAt = at(401);
  const cosignature = ed25519Signer(witnessKey)(
    encodeUtf8(
      cjson({
        type: 'svc.cosignature/v1',
        head: JSON.parse(headPayload(secondHead)) as unknown,
        signed_at: cosignedAt,
      }),
    ),
  );
  const secondAnchor: AnchorLine = {
    type: 'anchor',
    head: secondHead,
    key_id: keyId,
    algorithm: 'ed25519',
    timestamp: {
      authority: 'noop',
      digest: encodeHex(sha256(encodeUtf8(headPayload(secondHead)))),
      time: at(400),
      noop: true,
    },
    witnesses: [
      {
        witness_id: 'witness.example',
        public_key: encodeBase64(rawPublicKey(witnessKey)),
        signature: encodeBase64(cosignature),
        signed_at: cosignedAt,
        key_holder: 'Example Witness Co.',
      },
    ],
  };

  const header: HeaderLine = {
    type: 'header',
    schema: 'svc.export/v1',
    log_id: logId,
    tenant_id: VECTOR_TENANT,
    exported_at: at(600),
    entry_count: entries.length,
    head: signTreeHead(unsignedTreeHead(logId, entries.length, frontier.root(), at(599)), sign),
    public_key: encodeBase64(publicKey),
    signing_key_id: keyId,
    signature_algorithm: 'ed25519',
  };

  const exported = entries.map((entry) =>
    entry.sequence >= VECTOR_TOMBSTONE.from_sequence && entry.sequence <= VECTOR_TOMBSTONE.to_sequence
      ? redactEntry(entry, VECTOR_TOMBSTONE)
      : entry,
  );
  const [e1, e2, e3, e4, e5, e6, e7] = exported;
  const lines = [header, e1, e2, e3, firstAnchor, e4, e5, e6, secondAnchor, e7];
  return {
    jsonl: lines.map((line) => cjson(line) + '\n').join(''),
    publicKeyBase64: encodeBase64(publicKey),
  };
}
