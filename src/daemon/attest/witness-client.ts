import { z } from 'zod';
import { verifyCosignature } from '../../evidence/cosignature.js';
import { decodeBase64, encodeHex } from '../../evidence/encoding.js';
import type { Witness } from '../../evidence/export-line.js';
import { nodeCrypto } from '../../evidence/node-crypto.js';
import type { TreeHead } from '../../evidence/tree-head.js';
import { call } from './http-call.js';

const HeadAnswer = z.object({
  head: z.object({ log_id: z.string(), tree_size: z.number().int().min(1), root_hash: z.string() }).loose(),
});
const Cosignature = z
  .object({
    witness_id: z.string().min(1).max(200),
    public_key: z.string(),
    signature: z.string(),
    signed_at: z.string().min(1).max(64),
  })
  .loose();

const endpoint = (base: string, path: string): string => base.replace(/\/+$/, '') + path;

function json(body: Buffer, url: string): unknown {
  try {
    return JSON.parse(body.toString('utf8'));
  } catch {
    throw new Error(`${url} answered something that is not JSON`);
  }
}

/** The size of the last head the witness cosigned for this log; undefined before its first. */
export async function witnessLastSize(base: string, logId: string): Promise<number | undefined> {
  const url = endpoint(base, `/v1/head?log_id=${encodeURIComponent(logId)}`);
  const res = await call(url, { method: 'GET', headers: { accept: 'application/json' } });
  if (res.status === 404) return undefined;
  if (res.status !== 200) throw new Error(`${url} answered HTTP ${res.status}`);
  const parsed = HeadAnswer.safeParse(json(res.body, url));
  if (!parsed.success || parsed.data.head.log_id !== logId)
    throw new Error(`${url} answered no head of this log`);
  return parsed.data.head.tree_size;
}

/**
 * Ask the witness to cosign `head` with a consistency proof from the size it last cosigned.
 * The answer is checked before it is kept: a cosignature that does not verify under the key
 * the witness names is worthless in the journal.
 */
export async function requestCosignature(
  base: string,
  head: TreeHead,
  proof: readonly Uint8Array[],
): Promise<Witness> {
  const url = endpoint(base, '/v1/cosign');
  const res = await call(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'application/json' },
    body: JSON.stringify({ head, proof: proof.map(encodeHex) }),
  });
  const body = json(res.body, url) as { code?: unknown; reason?: unknown };
  if (res.status !== 200) {
    throw new Error(`${url} refused (HTTP ${res.status} ${String(body?.code)}: ${String(body?.reason)})`);
  }
  const parsed = Cosignature.safeParse(body);
  if (!parsed.success) throw new Error(`${url} answered no cosignature`);
  const c = parsed.data;
  const key = decodeBase64(c.public_key);
  if (key?.length !== 32 || !verifyCosignature(head, c.signed_at, c.signature, key, nodeCrypto)) {
    throw new Error(`${url} answered a cosignature that does not verify under the key it names`);
  }
  return {
    witness_id: c.witness_id,
    public_key: c.public_key,
    signature: c.signature,
    signed_at: c.signed_at,
  };
}
