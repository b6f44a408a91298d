import { logIdFor } from '../../evidence/log-id.js';
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
