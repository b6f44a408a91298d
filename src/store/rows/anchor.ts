import { logIdFor } from '../../evidence/log-id.js';
import type { Timestamp, Witness } from '../../evidence/export-line.js';
import { sha256 } from '../../evidence/node-crypto.js';
import type { TreeHead } from '../../evidence/tree-head.js';
import type { StoredHead } from '../evidence-ports.js';
import type { DbInt } from './numbers.js';

/** An anchors row (a signed tree head) as both drivers return it. */
export interface AnchorRow {
  tenant_id: string;
  tree_size: DbInt;
  root_hash: string;
  signed_at: string;
  signature: string;
  key_id: string;
  algorithm: 'ed25519';
}

export function toStoredHead(r: AnchorRow): StoredHead {
  const size = Number(r.tree_size);
  const head: TreeHead = {
    log_id: logIdFor(r.tenant_id, sha256),
    index: size,
    root_hash: r.root_hash,
    tree_size: size,
    signed_at: r.signed_at,
    signature: r.signature,
  };
  return { tenantId: r.tenant_id, head, keyId: r.key_id, algorithm: r.algorithm };
}

/** An anchor_timestamps row as both drivers return it (PostgreSQL casts `noop` to int). */
export interface TimestampRow {
  authority: string;
  digest: string;
  time: string;
  token: string | null;
  noop: number;
}

/** An anchor_witnesses row as both drivers return it. */
export interface WitnessRow {
  witness_id: string;
  public_key: string;
  signature: string;
  signed_at: string;
}

export const timestampOf = (t: TimestampRow): Timestamp => ({
  authority: t.authority,
  digest: t.digest,
  time: t.time,
  ...(t.token !== null ? { token: t.token } : {}),
  ...(t.noop === 1 ? { noop: true } : {}),
});

export const witnessOf = (w: WitnessRow): Witness => ({
  witness_id: w.witness_id,
  ...(w.public_key !== '' ? { public_key: w.public_key } : {}),
  signature: w.signature,
  signed_at: w.signed_at,
});

/** The values of a new anchors row, in the column order of both adapters' INSERT. */
export const anchorValues = (a: StoredHead): unknown[] => [
  a.tenantId,
  a.head.tree_size,
  a.head.root_hash,
  a.head.signed_at,
  a.head.signature,
  a.keyId,
  a.algorithm,
];
