import { Agent } from 'undici';
import { z } from 'zod';
import { bytesEqual } from '../../evidence/bytes.js';
import { verifyCosignature } from '../../evidence/cosignature.js';
import { decodeBase64, encodeBase64, encodeHex } from '../../evidence/encoding.js';
import type { Witness } from '../../evidence/export-line.js';
import { nodeCrypto } from '../../evidence/node-crypto.js';
import type { TreeHead } from '../../evidence/tree-head.js';
import { call } from './http-call.js';
import type { WitnessPin } from './witness-pin.js';

const HeadAnswer = z.object({
  head: z.object({ log_id: z.string(), tree_size: z.number().int().min(1), root_hash: z.string() }).loose(),
});
const Cosignature = z
  .object({
    witness_id: z.string().min(1).max(200),
    public_key: z.string().max(200).optional(),
    signature: z.string().max(200),
    // Stored as sent and checked by every later `svc verify` as a date-time: a malformed one
    // would fail every export, so it is refused here.
    signed_at: z
      .string()
      .max(64)
      .refine((s) => s.isWellFormed(), { abort: true })
      .pipe(z.iso.datetime({ offset: true })),
  })
  .loose();

/**
 * An answer the pinned witness did not give: a cosignature under another id or key, or one
 * that does not verify. Never stored; the attestor logs it and counts it apart from a
 * witness that is down, since it means something on the path answers in the witness's name.
 */
export class CosignatureRefused extends Error {
  override readonly name = 'CosignatureRefused';
}

const endpoint = (base: string, path: string): string => base.replace(/\/+$/, '') + path;

function json(body: Buffer, url: string): unknown {
  try {
    return JSON.parse(body.toString('utf8'));
  } catch {
    throw new Error(`${url} answered something that is not JSON`);
  }
}

/**
 * The daemon's side of one pinned witness (`svc witness serve`). Over https the pinned CA,
 * when given, is the only trust root for the connection (undici `connect.ca` replaces the
 * system roots); the cosignature itself is trusted only under the pinned id and key.
 */
export class WitnessClient {
  private readonly agent: Agent;

  constructor(readonly pin: WitnessPin) {
    this.agent = new Agent(pin.ca !== undefined ? { connect: { ca: pin.ca } } : {});
  }

  /** The size of the last head the witness cosigned for this log; undefined before its first. */
  async lastSize(logId: string): Promise<number | undefined> {
    const url = endpoint(this.pin.url, `/v1/head?log_id=${encodeURIComponent(logId)}`);
    const res = await call(url, {
      method: 'GET',
      headers: { accept: 'application/json' },
      dispatcher: this.agent,
    });
    if (res.status === 404) return undefined;
    if (res.status !== 200) throw new Error(`${url} answered HTTP ${res.status}`);
    const parsed = HeadAnswer.safeParse(json(res.body, url));
    if (!parsed.success || parsed.data.head.log_id !== logId)
      throw new Error(`${url} answered no head of this log`);
    return parsed.data.head.tree_size;
  }

  /**
   * Ask the witness to cosign `head` with a consistency proof from the size it last cosigned.
   * The answer is kept only when it names the pinned id, carries no other key than the
   * pinned one, and its signature verifies under the pinned key; what is kept carries the
   * pinned key, never the one in the answer.
   */
  async cosign(head: TreeHead, proof: readonly Uint8Array[]): Promise<Witness> {
    const url = endpoint(this.pin.url, '/v1/cosign');
    const res = await call(url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json' },
      body: JSON.stringify({ head, proof: proof.map(encodeHex) }),
      dispatcher: this.agent,
    });
    if (res.status !== 200) {
      const body = json(res.body, url) as { code?: unknown; reason?: unknown } | null;
      throw new Error(`${url} refused (HTTP ${res.status} ${String(body?.code)}: ${String(body?.reason)})`);
    }
    const parsed = Cosignature.safeParse(json(res.body, url));
    if (!parsed.success) throw new CosignatureRefused(`${url} answered no well-formed cosignature`);
    const c = parsed.data;
    if (c.witness_id !== this.pin.id) {
      throw new CosignatureRefused(
        `${url} answered as witness ${JSON.stringify(c.witness_id)}, not the pinned ${this.pin.id}`,
      );
    }
    if (c.public_key !== undefined) {
      const named = decodeBase64(c.public_key);
      if (named === undefined || !bytesEqual(named, this.pin.key)) {
        throw new CosignatureRefused(
          `${url} answered under a key other than the one pinned for ${this.pin.id}`,
        );
      }
    }
    if (!verifyCosignature(head, c.signed_at, c.signature, this.pin.key, nodeCrypto)) {
      throw new CosignatureRefused(
        `${url} answered a cosignature that does not verify under the key pinned for ${this.pin.id}`,
      );
    }
    return {
      witness_id: this.pin.id,
      public_key: encodeBase64(this.pin.key),
      signature: c.signature,
      signed_at: c.signed_at,
    };
  }

  close(): Promise<void> {
    return this.agent.close();
  }
}
